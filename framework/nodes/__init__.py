"""Node bodies shared by every planner-workers-reviewer team."""
