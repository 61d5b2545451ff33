package dev.tenure.bench.coordinated;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Client-side JDBC counters: every library under test gets its connections through {@link #wrap}, which counts
 * statement executions ({@code execute*}, a batch counting once) and explicit {@code commit()} / {@code rollback()}
 * calls. Commits of autocommit statements are not client calls: Postgres' {@code xact_commit} counts those.
 */
final class JdbcCounts {

    final LongAdder executions = new LongAdder();
    final LongAdder commits = new LongAdder();
    final LongAdder rollbacks = new LongAdder();

    /** A data source whose connections count into this object; everything else is delegated. */
    DataSource wrap(DataSource target) {
        return new Counting(target);
    }

    private final class Counting implements DataSource {
        private final DataSource target;

        Counting(DataSource target) {
            this.target = target;
        }

        @Override
        public Connection getConnection() throws SQLException {
            return connection(target.getConnection());
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            return connection(target.getConnection(user, password));
        }

        @Override
        public PrintWriter getLogWriter() throws SQLException {
            return target.getLogWriter();
        }

        @Override
        public void setLogWriter(PrintWriter out) throws SQLException {
            target.setLogWriter(out);
        }

        @Override
        public void setLoginTimeout(int seconds) throws SQLException {
            target.setLoginTimeout(seconds);
        }

        @Override
        public int getLoginTimeout() throws SQLException {
            return target.getLoginTimeout();
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            return target.getParentLogger();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            return iface.isInstance(target) ? iface.cast(target) : target.unwrap(iface);
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) throws SQLException {
            return iface.isInstance(target) || target.isWrapperFor(iface);
        }
    }

    private Connection connection(Connection c) {
        return (Connection) Proxy.newProxyInstance(
                JdbcCounts.class.getClassLoader(), new Class<?>[] {Connection.class}, new ConnectionHandler(c));
    }

    private final class ConnectionHandler implements InvocationHandler {
        private final Connection target;

        ConnectionHandler(Connection target) {
            this.target = target;
        }

        @Override
        public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
            String name = m.getName();
            if (name.equals("commit")) {
                commits.increment();
            } else if (name.equals("rollback") && (args == null || args.length == 0)) {
                rollbacks.increment();
            }
            Object r = call(target, m, args);
            if (r instanceof Statement s
                    && (name.equals("createStatement")
                            || name.equals("prepareStatement")
                            || name.equals("prepareCall"))) {
                Class<?> iface = s instanceof CallableStatement
                        ? CallableStatement.class
                        : s instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
                return Proxy.newProxyInstance(
                        JdbcCounts.class.getClassLoader(), new Class<?>[] {iface}, new StatementHandler(s, (Connection)
                                proxy));
            }
            return r;
        }
    }

    private final class StatementHandler implements InvocationHandler {
        private final Statement target;
        private final Connection connection;

        StatementHandler(Statement target, Connection connection) {
            this.target = target;
            this.connection = connection;
        }

        @Override
        public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
            String name = m.getName();
            if (name.startsWith("execute")) {
                executions.increment();
            } else if (name.equals("getConnection")) {
                return connection;
            }
            return call(target, m, args);
        }
    }

    private static Object call(Object target, Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
