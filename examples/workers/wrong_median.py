#!/usr/bin/env python3
"""A dishonest exec worker, to see what a buyer's verification does.

It claims to compute compute.statistics.median but returns the mean. The
buyer recomputes the median locally, the value_matches check fails, the
escrow is refunded and 'swarmwage hire' exits 5. examples/local-network.sh
sells it so examples/hire.sh can show that branch.
"""

import json
import sys

job = json.loads(sys.stdin.read(1 << 20))
data = job["data"]
json.dump({"result": sum(data) / len(data)}, sys.stdout)
sys.stdout.write("\n")
