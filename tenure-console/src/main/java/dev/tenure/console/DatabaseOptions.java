package dev.tenure.console;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.db.PoolConfig;
import dev.tenure.db.TenureDataSources;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The database options every command shares. The password comes from {@code PGPASSWORD} or a file, never from the
 * command line (where {@code ps} would show it).
 */
final class DatabaseOptions {

    @Option(
            names = "--jdbc-url",
            required = true,
            defaultValue = "${env:TENURE_JDBC_URL}",
            description = "JDBC URL of Tenure's database, e.g. jdbc:postgresql://db:5432/app (env TENURE_JDBC_URL)")
    String jdbcUrl;

    @Option(names = "--user", defaultValue = "${env:PGUSER}", description = "database user (env PGUSER)")
    String user;

    @Option(names = "--password-file", description = "file holding the database password (else env PGPASSWORD)")
    Path passwordFile;

    @Option(
            names = "--schema",
            defaultValue = "tenure",
            description = "schema of Tenure's tables (default: ${DEFAULT-VALUE})")
    String schema;

    /** A small pool (2 connections, 30 s statement timeout: a prune batch may take a while). */
    HikariDataSource open() {
        return TenureDataSources.hikari(PoolConfig.builder(jdbcUrl)
                .user(user)
                .password(password())
                .maxPoolSize(2)
                .statementTimeout(Duration.ofSeconds(30))
                .applicationName("tenure-console")
                .build());
    }

    private String password() {
        if (passwordFile == null) {
            return System.getenv("PGPASSWORD");
        }
        try {
            return Files.readString(passwordFile).strip();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read --password-file " + passwordFile + ": " + e.getMessage(), e);
        }
    }
}
