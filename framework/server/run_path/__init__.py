"""The run path every door shares (LangGraph's API, the agent protocols, the fleet and
``cadre run --thread``), from admission to outcome:

- :mod:`.start`: a run started on a thread, as the gate admits it (the thread made on demand
  and claimed for the caller through :mod:`.owners`);
- :mod:`.dispatch`: recording a run and handing it to what executes it, in the server's
  process (:mod:`.in_process`) or elsewhere (a dispatch the app is handed, such as the
  fleet's queue);
- :mod:`.segments`: one segment of a run, the thread advanced until it ends or pauses (a
  resume's decisions checked first), on the teams compiled in :mod:`.apps`, riding out a
  database outage (:mod:`.outage`);
- :mod:`.run_log` and :mod:`.stream_modes`: a run's events, in LangGraph's stream modes;
- :mod:`.outcome`: how a run ended (the thread's final values, or its error).

Its modules are public inside the server: the API's routes, the protocols, the fleet and the
CLI import them; the package itself exports nothing.
"""
