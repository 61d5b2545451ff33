package dev.tenure.testkit;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A Postgres server the kit may create databases on: a JDBC URL split around its database name, plus credentials.
 */
record PostgresServer(
        PostgresSource source, String urlPrefix, String adminDatabase, String urlSuffix, String user, String password) {

    private static final Pattern URL = Pattern.compile("^(jdbc:postgresql://[^/]*/)([^?]*)(\\?.*)?$");

    /** Splits {@code jdbc:postgresql://host:port/db?params}. */
    static PostgresServer fromUrl(PostgresSource source, String jdbcUrl, String user, String password) {
        Matcher matcher = URL.matcher(jdbcUrl.trim());
        if (!matcher.matches()) {
            throw new IllegalArgumentException(
                    "expected a URL like jdbc:postgresql://host:5432/postgres, got '" + jdbcUrl + "'");
        }
        String database = matcher.group(2).isEmpty() ? "postgres" : matcher.group(2);
        String suffix = matcher.group(3) == null ? "" : matcher.group(3);
        return new PostgresServer(source, matcher.group(1), database, suffix, user, password);
    }

    String jdbcUrl(String database) {
        return urlPrefix + database + urlSuffix;
    }

    PGSimpleDataSource dataSource(String database) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(jdbcUrl(database));
        if (user != null) {
            dataSource.setUser(user);
        }
        if (password != null) {
            dataSource.setPassword(password);
        }
        return dataSource;
    }

    /** A connection to the database given in the server's URL, for CREATE and DROP DATABASE. */
    Connection admin() throws SQLException {
        PGSimpleDataSource dataSource = dataSource(adminDatabase);
        dataSource.setConnectTimeout(5);
        dataSource.setLoginTimeout(5);
        return dataSource.getConnection();
    }

    @Override
    public String toString() {
        return source + " " + jdbcUrl(adminDatabase) + " as " + user;
    }
}
