"""Calls a wrong signature would let through: mypy --strict must reject
each one against rooda's stubs, or the check does not bite. Each line
with a mistake says the error it wants after "# wants:"."""

from rooda import *
from rooda.termination import until_command

p = compose("work", act=[fragment(content="Work.")])
iterate(p, max_iteration=3)  # wants: Unexpected keyword argument "max_iteration" for "iterate"
run(["go", "test"], timeout=[10])  # wants: Argument "timeout" to "run" has incompatible type
r = iterate(p)
r.last.outcom  # wants: "Iteration" has no attribute "outcom"
dollars: float = r.cost  # wants: Incompatible types in assignment
until_command(["make"], timeout=None)  # wants: Argument "timeout" to "until_command" has incompatible type "None"
worktree(3)  # wants: Argument 1 to "worktree" has incompatible type "int"; expected "str"
