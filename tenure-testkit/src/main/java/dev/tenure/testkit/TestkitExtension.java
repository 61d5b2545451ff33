package dev.tenure.testkit;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit Jupiter extension that injects one {@link ValkeyServer} (standalone, default arguments) and one
 * {@link PostgresDatabase} per test class, created on first use and closed after the class.
 *
 * <pre>{@code
 * @ExtendWith(TestkitExtension.class)
 * class LeaseStoreIT {
 *     @Test void acquire_free_succeeds(ValkeyServer valkey, PostgresDatabase db) { ... }
 * }
 * }</pre>
 *
 * For extra server arguments, replication or clusters, use {@link ValkeyServers} in {@code @BeforeAll} instead.
 */
public final class TestkitExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(TestkitExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == ValkeyServer.class || type == PostgresDatabase.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        ExtensionContext classContext = classContext(context);
        ExtensionContext.Store store = classContext.getStore(NAMESPACE);
        if (parameter.getParameter().getType() == ValkeyServer.class) {
            return store.computeIfAbsent(ValkeyServer.class, key -> ValkeyServers.standalone(), ValkeyServer.class);
        }
        Class<?> testClass = classContext.getRequiredTestClass();
        return store.computeIfAbsent(
                PostgresDatabase.class, key -> PostgresDatabases.forClass(testClass), PostgresDatabase.class);
    }

    /** The context of the innermost test class, so one resource serves all of its methods. */
    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext current = context;
        while (current.getTestMethod().isPresent() && current.getParent().isPresent()) {
            current = current.getParent().get();
        }
        return current;
    }
}
