package dev.tenure.quartz;

/**
 * {@link PausedJobScenarios} on a JDBC job store (JobStoreTX on the test database): the pause check reads the triggers'
 * states from Quartz's tables.
 */
class QuartzPausedJdbcIT extends PausedJobScenarios {

    @Override
    boolean jdbc() {
        return true;
    }
}
