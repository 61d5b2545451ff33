package dev.tenure.boot.autoconfigure;

import static dev.tenure.boot.TenureConfigurationException.property;

import dev.tenure.JobCoordinator;
import dev.tenure.db.TenureSchema;
import dev.tenure.integration.NodeName;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Tenure's tenure.* properties. Every value is checked when the properties are bound: a bad one stops the
 * application with a TenureConfigurationException that names the property. Immutable.
 *
 * @param enabled       whether Tenure is set up at all; false backs off every Tenure bean, and @Coordinated
 *                      methods then run on every instance, uncoordinated
 * @param mode          which layers a coordinated run uses: valkey-with-database-fallback (the default when
 *                      tenure.valkey.addresses is set), valkey (Valkey unreachable = runs refused) or
 *                      database (the default without Valkey addresses)
 * @param schema        the Postgres schema of Tenure's tables (created if missing)
 * @param migrateSchema whether start-up migrates Tenure's schema (Flyway, own history table
 *                      tenure_schema_history, next to the application's own Flyway history)
 * @param lease         TTL and renewal of every lease, run and election
 * @param fallback      the breaker that sends runs to the database alone while Valkey is unreachable
 * @param valkey        the Valkey in front of the database (leave addresses empty for the database mode)
 * @param datasource    a pool of Tenure's own (default: none, Tenure uses the application's DataSource)
 * @param database      how Tenure uses the database: lock waits, query timeout, its threads, call timeout, LISTEN
 * @param scheduling    @Coordinated on @Scheduled methods
 * @param quartz        Tenure in Boot's Quartz scheduler
 * @param batch         Tenure in Boot's Spring Batch set-up
 * @param missedFires   what happens to fires of @Coordinated methods that were due and did not complete
 * @param nodeName      this instance's name as people read it, recorded on every run and election term and shown by
 *                      the console, the CLI and the actuator endpoint (default: host/spring.application.name/pid, or
 *                      host/pid without an application name; see dev.tenure.integration.NodeName)
 * @param application   the application whose schedules this instance registers, and whose instances elect one
 *                      sweeper for all of them (default: spring.application.name, else {@code default}); instances of
 *                      another version of the same application belong to it, another service sharing the schema does not
 */
@ConfigurationProperties("tenure")
public record TenureProperties(
        @DefaultValue("true") boolean enabled,
        JobCoordinator.Mode mode,
        @DefaultValue(TenureSchema.DEFAULT_SCHEMA) String schema,
        @DefaultValue("true") boolean migrateSchema,
        @DefaultValue @NestedConfigurationProperty LeaseProperties lease,
        @DefaultValue @NestedConfigurationProperty FallbackProperties fallback,
        @DefaultValue @NestedConfigurationProperty ValkeyProperties valkey,
        @DefaultValue @NestedConfigurationProperty DatasourceProperties datasource,
        @DefaultValue @NestedConfigurationProperty DatabaseProperties database,
        @DefaultValue @NestedConfigurationProperty SchedulingProperties scheduling,
        @DefaultValue QuartzProperties quartz,
        @DefaultValue BatchProperties batch,
        @DefaultValue @NestedConfigurationProperty MissedFiresProperties missedFires,
        String nodeName,
        String application) {

    public TenureProperties {
        try {
            TenureSchema.checkName(schema);
        } catch (IllegalArgumentException e) {
            throw property("tenure.schema", schema, "a plain lower-case Postgres identifier, [a-z_][a-z0-9_]{0,62}");
        }
        if (nodeName != null) {
            try {
                NodeName.check(nodeName);
            } catch (IllegalArgumentException e) {
                throw property(
                        "tenure.node-name",
                        nodeName,
                        "1 to " + NodeName.MAX_LENGTH + " characters, not only " + "blanks, no control characters ("
                                + e.getMessage() + ")");
            }
        }
        if (application != null) {
            checkApplication("tenure.application", application);
        }
        boolean hasValkey = !valkey.addresses().isEmpty();
        if (mode == JobCoordinator.Mode.DATABASE && hasValkey) {
            throw property(
                    "tenure.mode",
                    "database",
                    "the database mode uses no Valkey: remove tenure.valkey.addresses, "
                            + "or choose valkey-with-database-fallback");
        }
        if (mode != null && mode != JobCoordinator.Mode.DATABASE && !hasValkey) {
            throw property(
                    "tenure.mode",
                    mode.name().toLowerCase().replace('_', '-'),
                    "a Valkey mode needs tenure.valkey.addresses (host:port, ...)");
        }
    }

    /**
     * The node name in effect: tenure.node-name, else {@link NodeName#defaultName(String)} of
     * {@code applicationName} (spring.application.name; null when not set).
     */
    public String effectiveNodeName(String applicationName) {
        return nodeName != null ? nodeName : NodeName.defaultName(applicationName);
    }

    /** The application in effect: tenure.application, else {@code applicationName} (spring.application.name), else "default". */
    public String effectiveApplication(String applicationName) {
        if (application != null) {
            return application;
        }
        if (applicationName == null || applicationName.isBlank()) {
            return "default";
        }
        // spring.application.name is free text: whitespace and braces become '-', and it is cut at 100 characters
        String name = applicationName.strip().replaceAll("[\\s{}\\p{Cntrl}]+", "-");
        return name.length() <= 100 ? name : name.substring(0, 100);
    }

    private static String checkApplication(String property, String name) {
        try {
            dev.tenure.Tenure.builder().application(name);
            return name;
        } catch (IllegalArgumentException e) {
            throw property(property, name, "1 to 100 characters without whitespace or braces (" + e.getMessage() + ")");
        }
    }

    /** The mode in effect: the configured one, else a Valkey mode with addresses, else the database mode. */
    public JobCoordinator.Mode effectiveMode() {
        if (mode != null) {
            return mode;
        }
        return valkey.addresses().isEmpty()
                ? JobCoordinator.Mode.DATABASE
                : JobCoordinator.Mode.VALKEY_WITH_DATABASE_FALLBACK;
    }

    /**
     * tenure.quartz.*.
     *
     * @param enabled   whether Quartz fires of the selected jobs are coordinated (when Boot's Quartz starter is present)
     * @param plugIn    how: job-factory (the default: each coordinated job runs inside Tenure's job factory) or
     *                  listeners (a trigger and a job listener)
     * @param jobGroups the Quartz job groups to coordinate; empty = every job
     */
    public record QuartzProperties(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("job-factory") PlugIn plugIn,
            @DefaultValue List<String> jobGroups) {

        /** How Tenure plugs into Quartz. */
        public enum PlugIn {
            JOB_FACTORY,
            LISTENERS
        }

        public QuartzProperties {
            for (int i = 0; i < jobGroups.size(); i++) {
                if (jobGroups.get(i) == null || jobGroups.get(i).isBlank()) {
                    throw property("tenure.quartz.job-groups[" + i + "]", jobGroups.get(i), "a Quartz job group name");
                }
            }
        }
    }

    /**
     * tenure.batch.*.
     *
     * @param guardStartupLaunch whether Boot's start-up job runner launches through Tenure's guard (one launch per job
     *                           and identifying parameters across instances); false leaves Boot's own runner
     * @param fenceJobRepository whether Boot's JDBC job repository is wrapped so that a stale owner cannot overwrite
     *                           batch metadata
     */
    public record BatchProperties(
            @DefaultValue("true") boolean guardStartupLaunch,
            @DefaultValue("true") boolean fenceJobRepository) {}
}
