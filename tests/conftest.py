import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))   # tests/ helpers (docs_site) importable from test modules
