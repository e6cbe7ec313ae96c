# An illustrative energy model for the 2-vCPU haltpoll guest, in idlestat's
# format (the numbers are made up: a guest has no power of its own). POLL
# spins at busy power; "haltpoll idle" halts the vCPU. The fourth C-state
# column is idlescope's entry + exit energy (power unit x us): a halt costs
# a VM exit and entry, worth 5000 unit-us here, so halting pays off from
# 5000 / (500 - 50) = 11.1 us.
clusters 1
clusterA: 1 cap states 2 C states

P-states:
# speed, cluster power, core power
2000	0	500

C-states:
# name, cluster power, core power, entry+exit energy
POLL		0	500	0
haltpoll-idle	0	50	5000

wakeup	0	0
