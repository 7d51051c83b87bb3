// HikariPing.java - HikariCP (Debian's libhikaricp-java) over pgjdbc: N
// checkouts of one pooled connection, each running one query.  With
// com.zaxxer.hikari.aliveBypassWindowMs=0 and a pause between checkouts,
// HikariCP validates the connection on every checkout after the first with
// Connection.isValid(), which pgjdbc sends as an empty query.
//
// Usage: java -Dcom.zaxxer.hikari.aliveBypassWindowMs=0 -cp ... HikariPing URL N
// Prints what the client did as key=value pairs.
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

public class HikariPing {
    public static void main(String[] args) throws Exception {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(args[0]);
        cfg.setMaximumPoolSize(1);
        cfg.setMinimumIdle(1);
        int n = Integer.parseInt(args[1]);
        try (HikariDataSource ds = new HikariDataSource(cfg)) {
            for (int i = 0; i < n; i++) {
                Thread.sleep(20); // past the alive-bypass window
                try (Connection c = ds.getConnection();
                     PreparedStatement ps = c.prepareStatement("SELECT ? + 1")) {
                    ps.setInt(1, i);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                    }
                }
            }
        }
        System.out.println("checkouts=" + n + " queries=" + n);
    }
}
