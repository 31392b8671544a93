// Package readiness tells whether applied objects are ready (kstatus rules), waits for them, and explains why one is not: a workload's pods that cannot start, a load balancer without an address, a claim no volume bound.
package readiness
