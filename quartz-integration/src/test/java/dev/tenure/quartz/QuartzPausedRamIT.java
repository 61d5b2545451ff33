package dev.tenure.quartz;

/** {@link PausedJobScenarios} on a RAM job store. */
class QuartzPausedRamIT extends PausedJobScenarios {

    @Override
    boolean jdbc() {
        return false;
    }
}
