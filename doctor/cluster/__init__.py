"""Multi-node, all in one place: the nodes' facts (nodes.py; ray_gather.py running node_probe.py on every
node), layouts over nodes and their traffic (layouts.py), the multi-node memory plan (plan.py), what engines
share for per-node launches (node_commands.py; each engine's own part is doctor/engines/<engine>/multinode.py),
version skew and the network between nodes, and `check` over a cluster (check.py)."""
