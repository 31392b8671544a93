// Package bench measures Piceli against kubectl on a sandbox, side by side
// in one run (make bench), and writes the results table.
package bench
