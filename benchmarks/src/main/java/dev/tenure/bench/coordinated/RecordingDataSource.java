package dev.tenure.bench.coordinated;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * Records what goes through a {@link DataSource}: every call on its connections by method name, every statement
 * execution by its text, and the parameters of each statement's latest execution. Made with
 * {@link java.lang.reflect.Proxy}, so the data source, connections and statements keep only their JDBC interfaces.
 * {@link PgProfile} puts one around the pool (what the library asks for) and one under it (what reaches pgjdbc,
 * the pool's own validation and resets included).
 *
 * <p>Statement texts are normalized: runs of white space become one space, and a plain statement's literals become
 * {@code ?} (a prepared statement already has them as {@code ?}). A batch counts as one execution under its text
 * marked {@code [batch]}. Thread-safe.
 */
final class RecordingDataSource {

    /** One statement text: executions and the parameters of the latest one. */
    static final class Text {
        final LongAdder executions = new LongAdder();
        /** The latest execution's parameters ({@code setX} calls by index), or the raw text of a plain statement. */
        volatile Map<Integer, Object[]> parameters = Map.of();

        volatile String raw;
    }

    /** Called just before an execution reaches the driver, on the driver's own connection. */
    interface BeforeExecute {
        void before(Connection raw, String text, String rawSql, Map<Integer, Object[]> parameters);
    }

    final String name;
    final Map<String, LongAdder> calls = new ConcurrentHashMap<>();
    final Map<String, Text> texts = new ConcurrentHashMap<>();
    volatile BeforeExecute hook;

    RecordingDataSource(String name) {
        this.name = name;
    }

    /** {@code target} with this recorder around it. */
    DataSource wrap(DataSource target) {
        return (DataSource) Proxy.newProxyInstance(loader(), new Class<?>[] {DataSource.class}, (proxy, m, args) -> {
            Object r = call(target, m, args);
            if (m.getName().equals("getConnection")) {
                count("DataSource.getConnection");
                Connection c = (Connection) r;
                return Proxy.newProxyInstance(loader(), new Class<?>[] {Connection.class}, new OnConnection(c));
            }
            return r;
        });
    }

    /** Calls and executions so far, as one map: {@code call:<method>} and {@code sql:<text>}. */
    Map<String, Long> snapshot() {
        Map<String, Long> m = new TreeMap<>();
        calls.forEach((k, v) -> m.put("call:" + k, v.sum()));
        texts.forEach((k, v) -> m.put("sql:" + k, v.executions.sum()));
        return m;
    }

    private void count(String call) {
        calls.computeIfAbsent(call, k -> new LongAdder()).increment();
    }

    private final class OnConnection implements InvocationHandler {
        private final Connection target;

        OnConnection(Connection target) {
            this.target = target;
        }

        @Override
        public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
            String name = m.getName();
            if (!name.equals("toString") && !name.equals("hashCode") && !name.equals("equals")) {
                count("Connection." + name + booleanArgument(args));
            }
            Object r = call(target, m, args);
            if (r instanceof Statement s) {
                Class<?> iface = s instanceof CallableStatement
                        ? CallableStatement.class
                        : s instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
                String prepared = args != null && args.length > 0 && args[0] instanceof String sql ? sql : null;
                return Proxy.newProxyInstance(
                        loader(), new Class<?>[] {iface}, new OnStatement(s, (Connection) proxy, target, prepared));
            }
            return r;
        }
    }

    /** "(true)" or "(false)" for setAutoCommit and setReadOnly, so the two directions count apart. */
    private static String booleanArgument(Object[] args) {
        return args != null && args.length == 1 && args[0] instanceof Boolean b ? "(" + b + ")" : "";
    }

    private final class OnStatement implements InvocationHandler {
        private final Statement target;
        private final Connection proxyConnection;
        private final Connection rawConnection;
        private final String prepared;
        private final Map<Integer, Object[]> parameters = new TreeMap<>();
        private int batched;

        OnStatement(Statement target, Connection proxyConnection, Connection rawConnection, String prepared) {
            this.target = target;
            this.proxyConnection = proxyConnection;
            this.rawConnection = rawConnection;
            this.prepared = prepared;
        }

        @Override
        public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
            String name = m.getName();
            if (name.equals("getConnection")) {
                return proxyConnection;
            }
            if (name.startsWith("set")
                    && args != null
                    && args.length >= 2
                    && args[0] instanceof Integer i
                    && prepared != null) {
                parameters.put(i, new Object[] {m, args.clone()});
            } else if (name.equals("clearParameters")) {
                parameters.clear();
            } else if (name.equals("addBatch")) {
                batched++;
            } else if (name.equals("clearBatch")) {
                batched = 0;
            } else if (name.startsWith("execute")) {
                count("Statement." + name);
                boolean batch = name.startsWith("executeBatch") || name.startsWith("executeLargeBatch");
                String raw = prepared != null
                        ? prepared
                        : args != null && args.length > 0 && args[0] instanceof String s ? s : "?";
                String text = (batch ? "[batch] " : "") + normalize(raw, prepared == null);
                Text t = texts.computeIfAbsent(text, k -> new Text());
                t.executions.increment();
                t.parameters = Map.copyOf(parameters);
                t.raw = raw;
                if (batch) {
                    batched = 0;
                }
                BeforeExecute h = hook;
                if (h != null && !batch) {
                    h.before(rawConnection, text, raw, t.parameters);
                }
            }
            return call(target, m, args);
        }
    }

    /** One line; a plain statement's string and number literals as {@code ?}. */
    static String normalize(String sql, boolean literals) {
        String s = sql.replaceAll("\\s+", " ").trim();
        if (literals) {
            s = s.replaceAll("'(?:[^']|'')*'", "?")
                    .replaceAll("(?<![A-Za-z_0-9$.])-?\\d+(?:\\.\\d+)?(?![A-Za-z_0-9])", "?");
        }
        return s;
    }

    /** Replays recorded {@code setX} calls on another prepared statement (an EXPLAIN of the same text). */
    static void replay(PreparedStatement ps, Map<Integer, Object[]> parameters) throws Throwable {
        for (Object[] p : parameters.values()) {
            call(ps, (Method) p[0], (Object[]) p[1]);
        }
    }

    private static Object call(Object target, Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static ClassLoader loader() {
        return RecordingDataSource.class.getClassLoader();
    }

    /** The call names of a snapshot delta, for printing. */
    static List<String> callNames(Map<String, Long> delta) {
        return delta.keySet().stream()
                .filter(k -> k.startsWith("call:"))
                .map(k -> k.substring(5))
                .toList();
    }
}
