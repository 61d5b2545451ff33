/** Tenure for Quartz: coordinated Quartz jobs (listener pair or job factory decorator). */
package dev.tenure.quartz;
