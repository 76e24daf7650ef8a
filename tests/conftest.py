"""Settings for every test: builds and runs in tests do not leave a warm proof host with the
keeper (core/keeper.py) unless a test asks for one, in a folder of its own."""

import os

os.environ["LDR_KEEP_HOST"] = "0"
