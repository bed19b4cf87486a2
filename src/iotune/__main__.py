import sys

from iotune.cli.entry import main

sys.exit(main())
