// App.java - the benchmark's blog on the JDK's com.sun.net.httpserver,
// HikariCP and pgjdbc, from Debian's jars: a checkout per page
// (try-with-resources on the pool's Connection, as JDBC code is written),
// PreparedStatements, autocommit.  Java has no Redis client in Debian 12:
// the page cache speaks the RESP commands it needs (GET, SET) itself, one
// connection per thread.  The SQL is bench/queries.h's, read from QUERIES;
// pages rendered byte for byte as the reference app renders them.
//
// Environment: PORT, DATABASE_URL (postgresql://user[:password]@host:port/db),
// REDIS_URL, POOL_MAX (16), POOL_MIN (4), QUERIES.
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class App {
    static final Map<String, String> Q = new HashMap<>();
    static HikariDataSource pool;
    static String redisHost;
    static int redisPort;
    static final Pattern DETAIL = Pattern.compile("/articles/([0-9]{1,9})");
    static final Pattern TAG = Pattern.compile("/tags/([^/]+)");
    static final Pattern CACHED = Pattern.compile("/cached/articles/([0-9]{1,9})");

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    // QUERIES is a flat JSON object of strings: read without a JSON library;
    // JDBC's placeholder is ?, not $1 (every query has one at most)
    static void readQueries(String path) throws IOException {
        String t = new String(Files.readAllBytes(Paths.get(path)), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("\"(Q_[A-Z_]+)\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(t);
        while (m.find())
            Q.put(m.group(1), m.group(2).replace("\\\"", "\"").replace("\\\\", "\\").replace("$1", "?"));
    }

    static List<String[]> rows(Connection c, String name, Object arg) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Q.get(name))) {
            if (arg instanceof Integer)
                ps.setInt(1, (Integer) arg);
            else if (arg != null)
                ps.setString(1, (String) arg);
            try (ResultSet rs = ps.executeQuery()) {
                int n = rs.getMetaData().getColumnCount();
                List<String[]> out = new ArrayList<>();
                while (rs.next()) {
                    String[] row = new String[n];
                    for (int i = 0; i < n; i++)
                        row[i] = rs.getString(i + 1);
                    out.add(row);
                }
                return out;
            }
        }
    }

    static void head(StringBuilder b, String title) {
        b.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>").append(esc(title))
            .append("</title></head><body>\n<h1>").append(esc(title)).append("</h1>\n");
    }

    static void articleList(StringBuilder b, List<String[]> arts, List<String[]> authors, List<String[]> tags) {
        Map<String, String> names = new HashMap<>();
        for (String[] a : authors)
            names.put(a[0], a[1]);
        b.append("<ul>\n");
        for (String[] a : arts) {
            b.append("<li><a href=\"/articles/").append(esc(a[0])).append("\">").append(esc(a[3]))
                .append("</a> by ").append(esc(names.getOrDefault(a[1], ""))).append(", ").append(esc(a[4]));
            for (String[] t : tags)
                if (t[0].equals(a[0]))
                    b.append(" <a href=\"/tags/").append(esc(t[1])).append("\">#").append(esc(t[2])).append("</a>");
            b.append("</li>\n");
        }
        b.append("</ul>\n</body></html>\n");
    }

    static Object[] pageIndex() throws SQLException {
        List<String[]> arts, authors, tags;
        try (Connection c = pool.getConnection()) {
            arts = rows(c, "Q_INDEX_ARTICLES", null);
            authors = rows(c, "Q_INDEX_AUTHORS", null);
            tags = rows(c, "Q_INDEX_TAGS", null);
        }
        StringBuilder b = new StringBuilder();
        head(b, "Latest articles");
        articleList(b, arts, authors, tags);
        return new Object[] {200, b.toString()};
    }

    static Object[] pageArticle(int id) throws SQLException {
        List<String[]> art, author, comments;
        try (Connection c = pool.getConnection()) {
            art = rows(c, "Q_DETAIL_ARTICLE", id);
            author = rows(c, "Q_DETAIL_AUTHOR", id);
            comments = rows(c, "Q_DETAIL_COMMENTS", id);
        }
        if (art.isEmpty())
            return new Object[] {404, "status 404\n"};
        String[] a = art.get(0);
        StringBuilder b = new StringBuilder();
        head(b, a[3]);
        b.append("<p class=\"meta\">by ").append(author.isEmpty() ? "" : esc(author.get(0)[1])).append(", ")
            .append(esc(a[5])).append("</p>\n<p>").append(esc(a[4])).append("</p>\n<h2>Comments</h2>\n<ul>\n");
        for (String[] cm : comments)
            b.append("<li><b>").append(esc(cm[1])).append("</b> ").append(esc(cm[3])).append(": ")
                .append(esc(cm[2])).append("</li>\n");
        b.append("</ul>\n</body></html>\n");
        return new Object[] {200, b.toString()};
    }

    static Object[] pageTag(String slug) throws SQLException {
        List<String[]> tag, arts, authors, tags;
        try (Connection c = pool.getConnection()) {
            tag = rows(c, "Q_TAG_TAG", slug);
            arts = rows(c, "Q_TAG_ARTICLES", slug);
            authors = rows(c, "Q_TAG_AUTHORS", slug);
            tags = rows(c, "Q_TAG_TAGS", slug);
        }
        if (tag.isEmpty())
            return new Object[] {404, "status 404\n"};
        StringBuilder b = new StringBuilder();
        head(b, "Articles tagged " + tag.get(0)[2]);
        articleList(b, arts, authors, tags);
        return new Object[] {200, b.toString()};
    }

    static Object[] pageCompute() {
        long total = 0;
        for (int n = 2; n < 20000; n++) {
            boolean prime = true;
            for (int d = 2; d * d <= n; d++)
                if (n % d == 0) {
                    prime = false;
                    break;
                }
            if (prime)
                total += n;
        }
        return new Object[] {200, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Compute</title>"
            + "</head><body>\n<h1>Compute</h1>\n<p>" + total + "</p>\n</body></html>\n"};
    }

    // ------------------------------------------------------------ RESP
    static final class Redis {
        final Socket s;
        final InputStream in;
        final OutputStream out;

        Redis() throws IOException {
            s = new Socket(redisHost, redisPort);
            s.setTcpNoDelay(true);
            in = new BufferedInputStream(s.getInputStream());
            out = s.getOutputStream();
        }

        String line() throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (int c; (c = in.read()) != '\n';) {
                if (c < 0)
                    throw new IOException("redis closed the connection");
                if (c != '\r')
                    b.write(c);
            }
            return b.toString("UTF-8");
        }

        // one command; its bulk reply, null for a nil, "+..." for a status
        String call(String... args) throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            for (String a : args) {
                byte[] v = a.getBytes(StandardCharsets.UTF_8);
                b.write(("$" + v.length + "\r\n").getBytes(StandardCharsets.UTF_8));
                b.write(v);
                b.write("\r\n".getBytes(StandardCharsets.UTF_8));
            }
            out.write(b.toByteArray());
            String l = line();
            if (l.startsWith("-"))
                throw new IOException("redis: " + l.substring(1));
            if (!l.startsWith("$"))
                return l;
            int n = Integer.parseInt(l.substring(1));
            if (n < 0)
                return null;
            byte[] v = new byte[n + 2];
            for (int got = 0; got < v.length;) {
                int r = in.read(v, got, v.length - got);
                if (r < 0)
                    throw new IOException("redis closed the connection");
                got += r;
            }
            return new String(v, 0, n, StandardCharsets.UTF_8);
        }
    }

    static final ThreadLocal<Redis> REDIS = new ThreadLocal<>();

    interface Render {
        Object[] page() throws SQLException;
    }

    static Object[] cached(String key, Render render) throws SQLException, IOException {
        Redis r = REDIS.get();
        if (r == null) {
            r = new Redis();
            REDIS.set(r);
        }
        String hit = r.call("GET", key);
        if (hit != null)
            return new Object[] {200, hit};
        Object[] page = render.page();
        if ((Integer) page[0] == 200)
            r.call("SET", key, (String) page[1]);
        return page;
    }

    static Object[] route(String path) throws SQLException, IOException {
        Matcher m;
        if (path.equals("/"))
            return pageIndex();
        if ((m = DETAIL.matcher(path)).matches())
            return pageArticle(Integer.parseInt(m.group(1)));
        if ((m = TAG.matcher(path)).matches())
            return pageTag(m.group(1));
        if (path.equals("/compute"))
            return pageCompute();
        if (path.equals("/cached/") && redisHost != null)
            return cached("page:/", App::pageIndex);
        if ((m = CACHED.matcher(path)).matches() && redisHost != null) {
            String id = m.group(1);
            return cached("page:/articles/" + id, () -> pageArticle(Integer.parseInt(id)));
        }
        return new Object[] {404, "status 404\n"};
    }

    static void handle(HttpExchange ex) throws IOException {
        Object[] page;
        try {
            page = route(ex.getRequestURI().getRawPath());
        } catch (Exception e) { // a failed query is a 500, said on stderr
            System.err.println("app: " + e);
            page = new Object[] {500, "status 500\n"};
        }
        byte[] body = ((String) page[1]).getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
        ex.sendResponseHeaders((Integer) page[0], body.length);
        try (OutputStream o = ex.getResponseBody()) {
            o.write(body);
        }
    }

    static int envInt(String name, int def) {
        String v = System.getenv(name);
        return v == null || v.isEmpty() ? def : Integer.parseInt(v);
    }

    public static void main(String[] args) throws Exception {
        readQueries(System.getenv("QUERIES"));
        // postgresql://user[:password]@host:port/db?... as JDBC wants it
        URI u = new URI(System.getenv("DATABASE_URL"));
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl("jdbc:postgresql://" + u.getHost() + ":" + u.getPort() + u.getRawPath()
            + (u.getRawQuery() != null ? "?" + u.getRawQuery() : ""));
        String[] ui = u.getRawUserInfo().split(":", 2);
        cfg.setUsername(URLDecoder.decode(ui[0], "UTF-8"));
        if (ui.length > 1)
            cfg.setPassword(URLDecoder.decode(ui[1], "UTF-8"));
        cfg.setMaximumPoolSize(envInt("POOL_MAX", 16));
        cfg.setMinimumIdle(envInt("POOL_MIN", 4));
        pool = new HikariDataSource(cfg);
        String r = System.getenv("REDIS_URL");
        if (r != null && !r.isEmpty()) {
            URI ru = new URI(r);
            redisHost = ru.getHost();
            redisPort = ru.getPort();
        }
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", envInt("PORT", 8080)), 1024);
        server.createContext("/", App::handle);
        server.setExecutor(Executors.newFixedThreadPool(4 * envInt("POOL_MAX", 16)));
        server.start();
        System.out.println("ready");
    }
}
