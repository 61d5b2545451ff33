/** Tenure for Spring Batch: guarded launches, per-chunk fencing, stop on lease loss, crash recovery. */
package dev.tenure.batch;
