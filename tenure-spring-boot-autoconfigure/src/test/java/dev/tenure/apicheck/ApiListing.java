package dev.tenure.apicheck;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The public API of one library module as text: every public type of its exported packages (a module's descriptor
 * says which; without one, every package but {@code internal} ones), and each type's public members, and protected
 * ones where a subclass can reach them. One header line per type, then its members indented, all sorted, so a change
 * reads as a diff of lines. Deprecation is part of the line ({@code @Deprecated(since="0.1.0", forRemoval=true)}), and
 * so is the value of a constant (a metric name is API). Read by reflection from the classes the module built.
 *
 * @param types type header → its member lines
 */
record ApiListing(SortedMap<String, SortedSet<String>> types) {

    static final String DEPRECATED_FOR_REMOVAL = "forRemoval=true";
    /** Modifiers that say how a member is implemented, not what callers may do with it. */
    private static final java.util.regex.Pattern IMPLEMENTATION_MODIFIERS =
            java.util.regex.Pattern.compile("\\b(synchronized|native|strictfp|transient|volatile) ");
    /** Types in the order of their names, whatever their modifiers. */
    static final Comparator<String> BY_TYPE_NAME =
            Comparator.comparing(ApiListing::binaryName).thenComparing(Comparator.naturalOrder());

    private static final String HEADER_COMMENT = "#";

    /** The API of the module whose classes hold {@code anyClass}. */
    static ApiListing of(Class<?> anyClass) throws IOException {
        Path root = classesOf(anyClass);
        if (Files.isDirectory(root)) {
            return scan(root, anyClass.getClassLoader());
        }
        try (FileSystem jar = FileSystems.newFileSystem(root)) {
            return scan(jar.getPath("/"), anyClass.getClassLoader());
        }
    }

    private static Path classesOf(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ApiListing scan(Path root, ClassLoader loader) throws IOException {
        Set<String> exported = exportedPackages(root);
        SortedMap<String, SortedSet<String>> types = new TreeMap<>(BY_TYPE_NAME);
        List<String> names;
        try (Stream<Path> files = Files.walk(root)) {
            names = files.map(p -> root.relativize(p).toString().replace('\\', '/'))
                    .filter(n -> n.endsWith(".class")
                            && !n.endsWith("module-info.class")
                            && !n.endsWith("package-info.class"))
                    .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.'))
                    .filter(n -> exported.contains(packageOf(n)))
                    .sorted()
                    .toList();
        }
        for (String name : names) {
            Class<?> c;
            try {
                c = Class.forName(name, false, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                throw new IllegalStateException(
                        "cannot load " + name + " (" + e + "): the API check's class path lacks "
                                + "a dependency of it; add it to this module's test dependencies",
                        e);
            }
            if (visible(c)) {
                types.put(header(c), members(c));
            }
        }
        return new ApiListing(types);
    }

    /** Exported to everyone by module-info.class, or every package but {@code *.internal*} without one. */
    private static Set<String> exportedPackages(Path root) throws IOException {
        Path info = root.resolve("module-info.class");
        if (Files.exists(info)) {
            try (InputStream in = Files.newInputStream(info)) {
                return ModuleDescriptor.read(in).exports().stream()
                        .filter(e -> !e.isQualified())
                        .map(ModuleDescriptor.Exports::source)
                        .collect(Collectors.toSet());
            }
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(".class"))
                    .map(p -> root.relativize(p.getParent())
                            .toString()
                            .replace('\\', '/')
                            .replace('/', '.'))
                    .filter(p -> !Arrays.asList(p.split("\\.")).contains("internal"))
                    .collect(Collectors.toSet());
        }
    }

    private static String packageOf(String className) {
        int dot = className.lastIndexOf('.');
        return dot < 0 ? "" : className.substring(0, dot);
    }

    /** Public, or a protected member type, and so all its enclosing types; not anonymous, local or synthetic. */
    private static boolean visible(Class<?> c) {
        if (c.isAnonymousClass() || c.isLocalClass() || c.isSynthetic()) {
            return false;
        }
        for (Class<?> t = c; t != null; t = t.getDeclaringClass()) {
            int m = t.getModifiers();
            boolean reachable = Modifier.isPublic(m)
                    || (Modifier.isProtected(m)
                            && !Modifier.isFinal(t.getDeclaringClass().getModifiers()));
            if (!reachable) {
                return false;
            }
        }
        return true;
    }

    private static String header(Class<?> c) {
        StringBuilder b = new StringBuilder(c.toGenericString());
        Type sup = c.getGenericSuperclass();
        if (sup != null && sup != Object.class && sup != Record.class && !c.isEnum()) {
            b.append(" extends ").append(sup.getTypeName());
        }
        Type[] interfaces = c.getGenericInterfaces();
        if (interfaces.length > 0 && !c.isAnnotation()) {
            b.append(c.isInterface() ? " extends " : " implements ")
                    .append(Arrays.stream(interfaces).map(Type::getTypeName).collect(Collectors.joining(", ")));
        }
        return b + deprecation(c.getAnnotation(Deprecated.class));
    }

    private static SortedSet<String> members(Class<?> c) {
        SortedSet<String> out = new TreeSet<>();
        boolean subclassable = !Modifier.isFinal(c.getModifiers()) && !c.isEnum() && !c.isRecord();
        List<Member> all = new ArrayList<>();
        all.addAll(Arrays.asList(c.getDeclaredConstructors()));
        all.addAll(Arrays.asList(c.getDeclaredMethods()));
        all.addAll(Arrays.asList(c.getDeclaredFields()));
        String prefix = c.getTypeName() + ".";
        for (Member m : all) {
            int mod = m.getModifiers();
            boolean api = Modifier.isPublic(mod) || (subclassable && Modifier.isProtected(mod));
            if (!api || m.isSynthetic() || (m instanceof Method method && method.isBridge())) {
                continue;
            }
            String text;
            if (m instanceof Constructor<?> k) {
                text = k.toGenericString().replace(c.getTypeName() + "(", "<init>(");
            } else if (m instanceof Method k) {
                text = k.toGenericString().replace(prefix, "");
            } else {
                text = ((Field) m).toGenericString().replace(prefix, "") + constant((Field) m);
            }
            text = IMPLEMENTATION_MODIFIERS.matcher(text).replaceAll("");
            out.add(text + deprecation(((java.lang.reflect.AnnotatedElement) m).getAnnotation(Deprecated.class)));
        }
        return out;
    }

    /** {@code  = "tenure.lease.acquire"} for a static final String or primitive constant: callers inline it. */
    private static String constant(Field f) {
        int mod = f.getModifiers();
        if (!Modifier.isStatic(mod)
                || !Modifier.isFinal(mod)
                || !(f.getType().isPrimitive() || f.getType() == String.class)) {
            return "";
        }
        try {
            f.setAccessible(true);
            Object v = f.get(null);
            return " = " + (v instanceof String s ? "\"" + s + "\"" : String.valueOf(v));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return "";
        }
    }

    private static String deprecation(Deprecated d) {
        if (d == null) {
            return "";
        }
        return " @Deprecated(since=\"" + d.since() + "\"" + (d.forRemoval() ? ", " + DEPRECATED_FOR_REMOVAL : "") + ")";
    }

    /** The text of a listing file: a comment, then each type and its members. */
    String write(String comment) {
        StringBuilder b = new StringBuilder();
        comment.lines()
                .forEach(l -> b.append(HEADER_COMMENT).append(' ').append(l).append('\n'));
        types.forEach((type, members) -> {
            b.append(type).append('\n');
            members.forEach(m -> b.append("    ").append(m).append('\n'));
        });
        return b.toString();
    }

    /** Reads what {@link #write} wrote. */
    static ApiListing read(String text) {
        SortedMap<String, SortedSet<String>> types = new TreeMap<>(BY_TYPE_NAME);
        SortedSet<String> current = null;
        for (String line : text.lines().toList()) {
            if (line.isBlank() || line.startsWith(HEADER_COMMENT)) {
                continue;
            }
            if (line.startsWith("    ")) {
                if (current == null) {
                    throw new IllegalArgumentException("a member before any type: " + line);
                }
                current.add(line.substring(4));
            } else {
                current = new TreeSet<>();
                types.put(line, current);
            }
        }
        return new ApiListing(types);
    }

    /**
     * What changed from {@code before} to this: a type's header line, or {@code dev.tenure.Type :: member} (by the
     * type's name, so a change of the header alone does not list every member).
     */
    Diff since(ApiListing before) {
        return Diff.between(flatten(before), flatten(this));
    }

    private static SortedSet<String> flatten(ApiListing l) {
        SortedSet<String> out = new TreeSet<>();
        for (Map.Entry<String, SortedSet<String>> e : l.types.entrySet()) {
            out.add(e.getKey());
            e.getValue().forEach(m -> out.add(binaryName(e.getKey()) + " :: " + m));
        }
        return out;
    }

    /** Lines of the listing that went and that came. */
    record Diff(SortedSet<String> removed, SortedSet<String> added) {
        static Diff between(Set<String> before, Set<String> after) {
            return new Diff(minus(before, after), minus(after, before));
        }

        private static SortedSet<String> minus(Set<String> a, Set<String> b) {
            SortedSet<String> out = new TreeSet<>(a);
            out.removeAll(b);
            return out;
        }

        boolean isEmpty() {
            return removed.isEmpty() && added.isEmpty();
        }
    }

    /**
     * The type a listing line is about, as a changelog names it: {@code Tenure.Builder} for a line of
     * {@code public static final class dev.tenure.Tenure$Builder} or one of its members.
     */
    static String typeName(String line) {
        String name = binaryName(line);
        return name.substring(name.lastIndexOf('.') + 1).replace('$', '.');
    }

    /** {@code dev.tenure.Tenure$Builder} of a type's header line, or of a {@code header :: member} line. */
    static String binaryName(String line) {
        String header = line.contains(" :: ") ? line.substring(0, line.indexOf(" :: ")) : line;
        for (String word : header.split(" ")) {
            if (word.contains(".") && !word.startsWith("@") && Character.isLowerCase(word.charAt(0))) {
                return word.replaceAll("<.*", "");
            }
        }
        throw new IllegalArgumentException("no type in " + line);
    }
}
