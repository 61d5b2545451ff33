package dev.tenure.boot.app;

import dev.tenure.boot.BootServers;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Starts the test applications as Boot starts a real one ({@code SpringApplication.run}: every auto-configuration on
 * the class path, Boot's Flyway, Hikari and scheduler), on the test's servers. Quartz and Batch stay out of these
 * applications (their own tests cover them).
 */
public final class TestApps {

    /** The Valkey server of the application started last (its lease keys are what {@link Events} looks at). */
    static volatile dev.tenure.testkit.ValkeyServer valkey;

    private TestApps() {}

    /** {@code configuration} started on {@code servers}, with Valkey, and {@code properties} last. */
    public static ConfigurableApplicationContext start(
            Class<?> configuration, BootServers servers, String... properties) {
        valkey = servers.valkey();
        List<String> p = new ArrayList<>(servers.both());
        p.add("spring.autoconfigure.exclude=org.springframework.boot.quartz.autoconfigure.QuartzAutoConfiguration,"
                + "org.springframework.boot.batch.autoconfigure.BatchAutoConfiguration,"
                + "org.springframework.boot.batch.jdbc.autoconfigure.BatchJdbcAutoConfiguration");
        p.add("spring.main.banner-mode=off");
        p.add("server.port=0");
        p.add("logging.level.root=warn");
        p.addAll(List.of(properties));
        return new SpringApplicationBuilder(configuration)
                .properties(p.toArray(String[]::new))
                .run();
    }
}
