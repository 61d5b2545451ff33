package dev.tenure.console;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;

/**
 * The console as a {@code jakarta.servlet} servlet (Servlet 6), to mount into a servlet container at a path, e.g. in
 * a Spring Boot application:
 *
 * <pre>{@code
 * @Bean
 * ServletRegistrationBean<ConsoleServlet> tenureConsole(DataSource dataSource) {
 *     return new ServletRegistrationBean<>(new ConsoleServlet(TenureConsole.builder(dataSource).build()),
 *             "/tenure-console/*");
 * }
 * }</pre>
 *
 * Links are built from the context path and the servlet path, so any mount point works. The host's own security
 * (Spring Security) may guard the path too; the console's own sign-in still guards its write action. Needs the
 * servlet API from the host (this module declares it {@code provided}). Thread-safe.
 */
public final class ConsoleServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private final transient TenureConsole console;

    /** Serves {@code console}. */
    public ConsoleServlet(TenureConsole console) {
        this.console = console;
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String type = req.getContentType();
        Map<String, String> form =
                "POST".equals(req.getMethod()) && type != null && type.startsWith("application/x-www-form-urlencoded")
                        ? WebRequest.params(ConsoleServer.body(req.getInputStream()))
                        : Map.of();
        String path = req.getPathInfo() == null ? "/" : req.getPathInfo();
        WebRequest r = new WebRequest(
                req.getMethod(),
                path,
                WebRequest.params(req.getQueryString()),
                form,
                req::getHeader,
                req.getContextPath() + req.getServletPath());
        WebResponse out = console.app().handle(r);
        resp.setStatus(out.status());
        out.headers().forEach(resp::setHeader);
        if (!"HEAD".equals(req.getMethod())) {
            resp.setContentLength(out.body().length);
            resp.getOutputStream().write(out.body());
        }
    }
}
