"""The notebooks' kernels print the report at a fixed width: pytest-xdist exports COLUMNS=80 to its workers (and a terminal
may export its own), and a kernel inherits it, so the console text of the report (which wraps to COLUMNS, issue 44) would
differ from the committed outputs, made at the width without a terminal (100)."""
import os

os.environ["COLUMNS"] = "100"
