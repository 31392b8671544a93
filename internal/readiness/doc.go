// Package readiness tells whether applied objects are ready (kstatus rules), waits for them, and explains why a workload's pods cannot start.
package readiness
