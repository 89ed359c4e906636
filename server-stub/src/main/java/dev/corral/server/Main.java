package dev.corral.server;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/**
 * Starts one Corral server from the command line.
 *
 * <pre>
 *   corral-server [--port N] [--data-dir DIR] [--tick DURATION] [--config FILE]
 * </pre>
 *
 * A config file is a Java properties file with the same keys as the flags
 * ({@code port}, {@code data-dir}, {@code tick}, {@code host}, {@code raft-port},
 * {@code max-data-bytes}, {@code snapshot-every}, {@code election-timeout-min},
 * {@code election-timeout-max}, {@code operation-timeout}); flags override the
 * file. Durations are milliseconds ({@code 2000}) or with a unit ({@code 2s},
 * {@code 500ms}).
 *
 * <p>An ensemble member's file also lists every server and names itself:
 * <pre>
 *   id=2
 *   server.1=127.0.0.1:7181:7281
 *   server.2=127.0.0.1:7182:7282
 *   server.3=127.0.0.1:7183:7283
 *   data-dir=/var/lib/corral/2
 * </pre>
 * ({@code server.<id>=<host>:<clientPort>:<peerPort>}); the server listens on
 * its own entry's ports unless {@code port} / {@code raft-port} say otherwise.
 */
public final class Main {
  static final Set<String> KEYS = Set.of(
      "host", "port", "raft-port", "data-dir", "tick", "max-data-bytes", "snapshot-every", "config", "id",
      "election-timeout-min", "election-timeout-max", "operation-timeout");
  private static final String SERVER_PREFIX = "server.";

  private Main() {}

  public static void main(String[] args) throws Exception {
    if (helpAsked(args)) {
      System.out.println(usage());
      return;
    }
    ServerConfig config;
    try {
      config = configFrom(args);
    } catch (IllegalArgumentException | IllegalStateException | IOException e) {
      System.err.println("corral-server: " + e.getMessage());
      System.err.println("usage: corral-server [--port N] [--data-dir DIR] [--tick DURATION] [--config FILE]"
          + " (--help for every flag)");
      System.exit(2);
      return;
    }
    HeapPolicy.apply();
    CorralServer server;
    try {
      server = CorralServer.start(config);
    } catch (RuntimeException e) {
      System.err.println("corral-server: " + causes(e));
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "corral-shutdown"));
    stopped.await();
  }

  static boolean helpAsked(String[] args) {
    List<String> given = Arrays.asList(args);
    return given.contains("--help") || given.contains("-h");
  }

  /** Every flag, with its default (a default config's); each may also be a line {@code key=value} of the --config file. */
  static String usage() {
    ServerConfig defaults = ServerConfig.builder().build();
    return String.join("\n",
        "usage: corral-server [--flag VALUE | --flag=VALUE ...]",
        "  --host HOST                    address the client port binds to (default " + defaults.host() + ")",
        "  --port N                       client port (default " + defaults.port() + "; 0 picks a free one)",
        "  --data-dir DIR                 log and snapshots (default " + Path.of(".").resolve(defaults.dataDir()) + ")",
        "  --tick DURATION                session tick, e.g. 2s, 500ms or 2000 (ms); session timeouts are"
            + " negotiated into 2-20 ticks (default " + setting(defaults.tick()) + ")",
        "  --max-data-bytes N             largest node data (default " + defaults.maxDataBytes() + ")",
        "  --snapshot-every N             log entries between snapshots (default " + defaults.snapshotEvery() + ")",
        "  --operation-timeout DURATION   a write not applied within it fails with OPERATION_TIMEOUT (default "
            + setting(defaults.operationTimeout()) + ")",
        "  --config FILE                  a file of key=value lines, the flags' names without '--';"
            + " flags given too win",
        "An ensemble member also takes:",
        "  --id ID                        this member's id among the server.<id> lines",
        "  server.<id>=HOST:CLIENT_PORT:PEER_PORT   one line per member, in the --config file",
        "  --raft-port N                  peer port, if not its server.<id> line's",
        "  --election-timeout-min DURATION, --election-timeout-max DURATION   (default "
            + setting(ServerConfig.DEFAULT_ELECTION_TIMEOUT_MIN) + "-"
            + setting(ServerConfig.DEFAULT_ELECTION_TIMEOUT_MAX) + ")");
  }

  /** A duration as {@link #durationOf} reads it: whole seconds as "2s", else milliseconds as "500ms". */
  static String setting(Duration duration) {
    long millis = duration.toMillis();
    return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
  }

  /** Reads flags and the optional config file into a config (flags win). */
  static ServerConfig configFrom(String[] args) throws IOException {
    Map<String, String> flags = parseFlags(args);
    Map<String, String> settings = new LinkedHashMap<>();
    String file = flags.get("config");
    if (file != null) {
      Properties properties = new Properties();
      try (Reader reader = Files.newBufferedReader(Path.of(file))) {
        properties.load(reader);
      } catch (NoSuchFileException e) {
        throw new IllegalArgumentException("the config file " + file + " does not exist");
      } catch (IOException | IllegalArgumentException e) {
        throw new IllegalArgumentException("cannot read the config file " + file + ": " + e);
      }
      for (String key : properties.stringPropertyNames()) {
        if ((!KEYS.contains(key) || key.equals("config")) && !key.startsWith(SERVER_PREFIX)) {
          throw new IllegalArgumentException("unknown setting '" + key + "' in " + file);
        }
        settings.put(key, properties.getProperty(key).trim());
      }
    }
    flags.remove("config");
    settings.putAll(flags);
    return build(settings);
  }

  private static Map<String, String> parseFlags(String[] args) {
    Map<String, String> flags = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument '" + arg + "'");
      }
      String key = arg.substring(2);
      int eq = key.indexOf('=');
      String value = eq >= 0 ? key.substring(eq + 1) : null;
      key = eq >= 0 ? key.substring(0, eq) : key;
      if (!KEYS.contains(key)) {
        throw new IllegalArgumentException("unknown flag --" + key);
      }
      if (value == null && i + 1 < args.length) {
        value = args[++i];
      } else if (value == null) {
        throw new IllegalArgumentException("flag --" + key + " needs a value");
      }
      if (flags.put(key, value) != null) {
        throw new IllegalArgumentException("flag --" + key + " given twice");
      }
    }
    return flags;
  }

  private static ServerConfig build(Map<String, String> settings) {
    ServerConfig.Builder builder = ServerConfig.builder();
    ensemble(settings, builder);
    if (settings.containsKey("election-timeout-min") || settings.containsKey("election-timeout-max")) {
      String min = settings.get("election-timeout-min");
      String max = settings.get("election-timeout-max");
      if (min == null || max == null) {
        throw new IllegalArgumentException("set both election-timeout-min and election-timeout-max, or neither");
      }
      builder.electionTimeout(durationOf("election-timeout-min", min), durationOf("election-timeout-max", max));
    }
    settings.forEach((key, value) -> {
      if (key.startsWith(SERVER_PREFIX) || key.equals("id") || key.startsWith("election-timeout-")) {
        return;
      }
      switch (key) {
        case "host" -> builder.host(value);
        case "port" -> builder.port(intOf(key, value));
        case "raft-port" -> builder.raftPort(intOf(key, value));
        case "data-dir" -> builder.dataDir(Path.of(value));
        case "tick" -> builder.tick(durationOf(key, value));
        case "max-data-bytes" -> builder.maxDataBytes(intOf(key, value));
        case "snapshot-every" -> builder.snapshotEvery(intOf(key, value));
        case "operation-timeout" -> builder.operationTimeout(durationOf(key, value));
        default -> throw new IllegalArgumentException("unknown setting '" + key + "'");
      }
    });
    return builder.build();
  }

  /** The {@code server.<id>} entries and {@code id}: both or neither. */
  private static void ensemble(Map<String, String> settings, ServerConfig.Builder builder) {
    List<EnsembleMember> members = new ArrayList<>();
    settings.forEach((key, value) -> {
      if (key.startsWith(SERVER_PREFIX)) {
        members.add(EnsembleMember.parse(key.substring(SERVER_PREFIX.length()), value));
      }
    });
    String id = settings.get("id");
    if (members.isEmpty() && id == null) {
      return;
    }
    if (members.isEmpty()) {
      throw new IllegalArgumentException("id is set but no server.<id>=host:clientPort:peerPort entries are");
    }
    if (id == null) {
      throw new IllegalArgumentException("the config lists servers but not this server's id (id=...)");
    }
    members.sort(java.util.Comparator.comparing(EnsembleMember::id));
    builder.ensemble(id, members);
  }

  /**
   * Why the server could not start, in one line: the message of the failure
   * and of each cause that adds to it (e.g. "could not listen on
   * 127.0.0.1:7181: ... Address already in use"), for an operator, not a
   * stack trace.
   */
  static String causes(Throwable failure) {
    String line = "";
    for (Throwable t = failure; t != null; t = t.getCause()) {
      String message = messageOf(t);
      if (line.contains(message)) {
        continue;
      }
      line = line.isEmpty() ? message : line + ": " + message;
    }
    return line;
  }

  /** A file system failure's message is often the bare path: it then says what went wrong too. */
  private static String messageOf(Throwable t) {
    if (t instanceof FileSystemException fs) {
      String what = fs instanceof NoSuchFileException ? "no such file or directory"
          : fs instanceof AccessDeniedException ? "permission denied"
          : fs.getReason() != null ? fs.getReason() : fs.getClass().getSimpleName();
      return fs.getFile() + ": " + what;
    }
    return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
  }

  private static int intOf(String key, String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a whole number, was '" + value + "'");
    }
  }

  /**
   * A duration as the server's settings write it: 2000 (milliseconds), 2s or 500ms.
   *
   * @throws IllegalArgumentException naming {@code key} when {@code value} is none of those
   */
  public static Duration durationOf(String key, String value) {
    try {
      if (value.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
      }
      if (value.endsWith("s")) {
        return Duration.ofMillis(Math.round(Double.parseDouble(value.substring(0, value.length() - 1)) * 1000));
      }
      return Duration.ofMillis(Long.parseLong(value));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a duration like 2000, 2s or 500ms, was '" + value + "'");
    }
  }
}
