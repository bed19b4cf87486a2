import sys

from iotune.cli.app import main

sys.exit(main())
