// Package sched defines the Scheduler interface and the single-machine
// schedulers Sync and Threaded, with callbacks on which the progress bar and
// the profiler are built.
package sched
