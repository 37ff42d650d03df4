// Follows a running thread: its progress events as list items, then a reload at the end.
(function () {
  "use strict";
  var list = document.getElementById("progress");
  if (!list || !window.EventSource) { return; }
  var events = new EventSource(list.getAttribute("data-events"));
  events.addEventListener("progress", function (message) {
    var item = document.createElement("li");
    var data = JSON.parse(message.data) || {};
    item.textContent = [data.event || data.kind || "progress", data.task_id || "", data.message || data.status || ""]
      .filter(Boolean).join(" · ");
    list.appendChild(item);
  });
  events.addEventListener("end", function () {
    events.close();
    window.location.reload();
  });
})();
