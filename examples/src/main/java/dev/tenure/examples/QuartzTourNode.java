package dev.tenure.examples;

import dev.tenure.JobContext;
import dev.tenure.Tenure;
import dev.tenure.quartz.QuartzCoordination;
import org.quartz.DisallowConcurrentExecution;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;
import org.quartz.Scheduler;

/**
 * One application instance of the Quartz tour: {@code <name> <valkey address> <jdbc url> <user> <password|->}. Its
 * own RAM scheduler fires the {@link QuartzExample} report job every second, as each instance's would; Tenure's
 * listeners let one instance per slot run it. Prints {@code READY}, then {@code RUNNING <slot>} and
 * {@code DONE <slot>} around each run it gets.
 */
public final class QuartzTourNode {

    public static void main(String[] a) throws Exception {
        QuartzExample.dataSource = TourNodes.pool(a, 2);
        Tenure tenure = TourNodes.tenure(QuartzExample.dataSource, a[1], a[0]);
        Scheduler scheduler = QuartzExample.ramScheduler(a[0]);
        QuartzCoordination.builder(tenure).build().registerListeners(scheduler);
        QuartzExample.schedule(scheduler, SlowReport.class);
        scheduler.start();
        System.out.println("READY");
        Thread.currentThread().join(); // until the tour kills this process
    }

    /** The example's report, after 150 ms of work: long enough for the tour to kill an instance mid-run. */
    @DisallowConcurrentExecution
    public static final class SlowReport extends QuartzExample.Report {
        @Override
        public void execute(JobExecutionContext context) throws JobExecutionException {
            String slot = JobContext.current().fireKey();
            System.out.println("RUNNING " + slot);
            try {
                Thread.sleep(150);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new JobExecutionException("interrupted before writing " + slot, e);
            }
            super.execute(context);
            System.out.println("DONE " + slot);
        }
    }
}
