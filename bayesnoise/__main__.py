import sys

from bayesnoise.cli import main

sys.exit(main())
