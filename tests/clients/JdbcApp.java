// JdbcApp.java - the blog's three routes on the JDK's com.sun.net.httpserver,
// HikariCP and pgjdbc (Debian's jars), each route a way JDBC code uses the
// pool, as Spring apps mix them:
//   GET /              a checkout per statement (JdbcTemplate outside a
//                      transaction: getConnection, one statement, close)
//   GET /articles/{id} a checkout per page, autocommit (try-with-resources)
//   GET /tags/{slug}   a transaction per page (@Transactional:
//                      setAutoCommit(false), its statements, commit(); pgjdbc
//                      sends the BEGIN in the first statement's flight, and
//                      HikariCP sets autocommit back as the connection returns)
// pgjdbc prepares a statement on the server from its fifth use on a
// connection (prepareThreshold): from then on Bind/Execute of a named
// statement.  HikariCP tests a connection only when it was idle for 500 ms:
// under load, nothing on the wire marks a checkout but the transaction.
// SESSION_LOOKUP=1: every page first looks its user up, the same statement on
// every route (in the page's checkout where it has one; counted among its
// statements).  GET /stats gives {route: [pages, statements, COMMITs]}, the
// truth tests/live/driver_pages_test.py holds pgrtt's figures to.
//
// java -cp ... JdbcApp PORT JDBC-URL QUERIES-JSON; POOL_MAX (4) from the
// environment.
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class JdbcApp {
    static HikariDataSource pool;
    static final Map<String, List<String>> SQL = new TreeMap<>();
    static final Map<String, long[]> COUNTS = new TreeMap<>();
    static final String LOOKUP = "1".equals(System.getenv("SESSION_LOOKUP"))
        ? "SELECT id, name FROM authors WHERE id = ?" : null;

    // blog_queries.json: {"index": [...], "detail": [...], "tag": [...]},
    // read without a JSON library; JDBC's placeholder is ?, not $1
    static void readQueries(String path) throws IOException {
        String t = new String(Files.readAllBytes(Paths.get(path)), StandardCharsets.UTF_8);
        Matcher list = Pattern.compile("\"(\\w+)\"\\s*:\\s*\\[([^\\]]*)\\]").matcher(t);
        while (list.find()) {
            List<String> qs = new ArrayList<>();
            Matcher s = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(list.group(2));
            while (s.find())
                qs.add(s.group(1).replace("\\\"", "\"").replace("\\\\", "\\").replace("$1", "?"));
            SQL.put(list.group(1), qs);
        }
    }

    static int run(Connection c, String sql, Object arg) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            if (arg instanceof Integer)
                ps.setInt(1, (Integer) arg);
            else if (arg != null)
                ps.setString(1, (String) arg);
            int n = 0;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next())
                    n++;
            }
            return n;
        }
    }

    static synchronized void note(String route, int statements, int commits) {
        long[] c = COUNTS.computeIfAbsent(route, k -> new long[3]);
        c[0]++;
        c[1] += statements;
        c[2] += commits;
    }

    static String index() throws SQLException {
        StringBuilder b = new StringBuilder();
        List<String> qs = new ArrayList<>();
        if (LOOKUP != null)
            qs.add(LOOKUP);
        qs.addAll(SQL.get("index"));
        for (String q : qs)
            try (Connection c = pool.getConnection()) {
                b.append(run(c, q, q == LOOKUP ? (Object) 1 : null)).append(' ');
            }
        note("GET /", qs.size(), 0);
        return b.toString();
    }

    static String detail(int id) throws SQLException {
        StringBuilder b = new StringBuilder();
        try (Connection c = pool.getConnection()) {
            if (LOOKUP != null)
                b.append(run(c, LOOKUP, 1)).append(' ');
            for (String q : SQL.get("detail"))
                b.append(run(c, q, id)).append(' ');
        }
        note("GET /articles/{id}", SQL.get("detail").size() + (LOOKUP != null ? 1 : 0), 0);
        return b.toString();
    }

    static String tag(String slug) throws SQLException {
        StringBuilder b = new StringBuilder();
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            try {
                if (LOOKUP != null)
                    b.append(run(c, LOOKUP, 1)).append(' ');
                for (String q : SQL.get("tag"))
                    b.append(run(c, q, slug)).append(' ');
                c.commit();
            } catch (SQLException e) {
                c.rollback();
                throw e;
            }
        }
        note("GET /tags/{slug}", SQL.get("tag").size() + (LOOKUP != null ? 1 : 0), 1);
        return b.toString();
    }

    static synchronized String stats() {
        StringBuilder b = new StringBuilder("{");
        for (Map.Entry<String, long[]> e : COUNTS.entrySet()) {
            long[] c = e.getValue();
            b.append(b.length() > 1 ? ", " : "").append('"').append(e.getKey()).append("\": [")
                .append(c[0]).append(", ").append(c[1]).append(", ").append(c[2]).append(']');
        }
        return b.append('}').toString();
    }

    static void handle(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getRawPath();
        int status = 200;
        String body;
        try {
            if (path.equals("/stats"))
                body = stats();
            else if (path.equals("/"))
                body = index();
            else if (path.startsWith("/articles/"))
                body = detail(Integer.parseInt(path.substring(10)));
            else if (path.startsWith("/tags/"))
                body = tag(path.substring(6));
            else {
                status = 404;
                body = "no";
            }
        } catch (Exception e) {
            System.err.println("app: " + e);
            status = 500;
            body = String.valueOf(e);
        }
        byte[] out = body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(status, out.length);
        try (OutputStream o = ex.getResponseBody()) {
            o.write(out);
        }
    }

    public static void main(String[] args) throws Exception {
        readQueries(args[2]);
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(args[1]);
        String max = System.getenv("POOL_MAX");
        cfg.setMaximumPoolSize(max == null || max.isEmpty() ? 4 : Integer.parseInt(max));
        pool = new HikariDataSource(cfg);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0])), 256);
        server.createContext("/", JdbcApp::handle);
        server.setExecutor(Executors.newFixedThreadPool(16));
        server.start();
        System.out.println("ready");
    }
}
