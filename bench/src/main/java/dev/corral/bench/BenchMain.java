package dev.corral.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The benchmark harness (issue 6): starts each system's server as its own
 * process on 127.0.0.1, runs the workloads with every client in this JVM
 * (W4's contenders in JVMs of their own), stops exactly the processes it
 * started, and writes the results.
 *
 * <pre>
 *   BenchMain [corral|zookeeper|etcd|all ...] [--quick] [--out DIR] [--work DIR] [--corral-jar JAR]
 *             [--only W1,W2,W3,W4,W5,W6,MEM] [--corral-election-timeout MIN-MAX] [--keep-work] [--command TEXT]
 * </pre>
 *
 * The work directory (servers' data and logs) is deleted after a run without
 * failures unless {@code --keep-work} is given.
 *
 * {@code --corral-election-timeout 500ms-1000ms} sets the election timeouts of
 * W6's Corral members (the server's default otherwise), so that runs with
 * different settings can be compared.
 */
public final class BenchMain {
  /** Every workload, as {@code --only} names them. */
  static final List<String> WORKLOADS = List.of("W1", "W2", "W3", "W4", "W5", "W6", "MEM");

  private BenchMain() {}

  /** Parsed arguments. */
  record Options(List<String> systems, Params params, Path out, Path work, Path corralJar, Set<String> only,
      String command, CorralSystem.ElectionTimeout corralElectionTimeout, boolean keepWork) {}

  static Options parse(String[] args) {
    Set<String> systems = new LinkedHashSet<>();
    Params params = Params.full();
    Path out = Path.of("bench", "results");
    Path work = null;
    Path jar = null;
    Set<String> only = new LinkedHashSet<>(WORKLOADS);
    CorralSystem.ElectionTimeout electionTimeout = null;
    boolean keepWork = false;
    String command = "bin/corral-bench " + String.join(" ", args);
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "corral", "zookeeper", "etcd" -> systems.add(a);
        case "all" -> systems.addAll(List.of("corral", "zookeeper", "etcd"));
        case "--quick" -> params = Params.quick();
        case "--tiny" -> params = Params.tiny();
        case "--keep-work" -> keepWork = true;
        case "--out" -> out = Path.of(value(args, ++i, a));
        case "--work" -> work = Path.of(value(args, ++i, a));
        case "--corral-jar" -> jar = Path.of(value(args, ++i, a));
        case "--command" -> command = value(args, ++i, a);
        case "--corral-election-timeout" -> electionTimeout = CorralSystem.ElectionTimeout.parse(value(args, ++i, a));
        case "--only" -> {
          only.clear();
          for (String w : value(args, ++i, a).split(",")) {
            only.add(workload(w));
          }
        }
        default -> throw new IllegalArgumentException("unknown argument '" + a + "'");
      }
    }
    if (systems.isEmpty()) {
      systems.addAll(List.of("corral", "zookeeper", "etcd"));
    }
    return new Options(new ArrayList<>(systems), params, out, work, jar, only, command, electionTimeout,
        keepWork);
  }

  /** A workload named in {@code --only}, in any case; an unknown name is refused. */
  private static String workload(String name) {
    String w = name.trim().toUpperCase(Locale.ROOT);
    if (!WORKLOADS.contains(w)) {
      throw new IllegalArgumentException("--only: unknown workload '" + name.trim() + "'; the workloads are "
          + String.join(",", WORKLOADS));
    }
    return w;
  }

  private static String value(String[] args, int i, String flag) {
    if (i >= args.length) {
      throw new IllegalArgumentException(flag + " needs a value");
    }
    return args[i];
  }

  public static void main(String[] args) throws Exception {
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel",
        System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
    // the ZooKeeper client logs each lost connection with a stack trace at WARN: W6 makes many
    System.setProperty("org.slf4j.simpleLogger.log.org.apache.zookeeper.ClientCnxn",
        System.getProperty("org.slf4j.simpleLogger.log.org.apache.zookeeper.ClientCnxn", "error"));
    System.setProperty("java.awt.headless", "true");
    Options options;
    try {
      options = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("corral-bench: " + e.getMessage());
      System.err.println("usage: corral-bench [corral|zookeeper|etcd|all] [--quick] [--out DIR] [--only W1,W2,...]"
          + " [--corral-election-timeout 500ms-1000ms] [--keep-work]");
      System.exit(2);
      return;
    }
    int failures;
    try {
      failures = run(options, System.out).failures();
    } finally {
      Procs.stopAll();
    }
    System.exit(failures == 0 ? 0 : 1);
  }

  /** What a run produced. */
  public record Outcome(Table table, Path markdown, int failures) {}

  /** Runs the benchmark; never leaves a process it started running. */
  public static Outcome run(Options o, PrintStream log) throws Exception {
    Path work = o.work() != null ? o.work() : Files.createTempDirectory("corral-bench-");
    Files.createDirectories(work);
    Table table = new Table();
    String started = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm"));
    List<String> machine = machineFacts(work);
    machine.forEach(m -> log.println("bench: " + m));
    List<String> described = new ArrayList<>();
    List<String> ran = new ArrayList<>();
    List<BenchSystem> systems = new ArrayList<>();
    for (String name : o.systems()) {
      BenchSystem system;
      switch (name) {
        case "corral" -> system = new CorralSystem(o.corralJar(), o.corralElectionTimeout());
        case "zookeeper" -> system = new ZooKeeperSystem();
        case "etcd" -> {
          Optional<EtcdSystem> etcd = EtcdSystem.find();
          if (etcd.isEmpty()) {
            String why = "etcd: skipped, no etcd binary on PATH (bin/corral-bench installs Debian's etcd-server"
                + " with apt-get when it can; it could not here)";
            log.println("bench: " + why);
            table.note(why);
            continue;
          }
          system = etcd.get();
        }
        default -> throw new IllegalArgumentException(name);
      }
      ran.add(name);
      described.add(name + ": " + system.describe());
      if (o.only().contains("W6")) {
        described.add(name + " (W6): " + system.describeEnsemble());
      }
      systems.add(system);
    }
    int failures = 0;
    for (BenchSystem system : systems) {
      failures += mem(system, o, work.resolve(system.name()), table, log);
    }
    failures += mainWorkloads(systems, o, work, table, log);
    failures += ensembles(systems, o, work, table, log);
    Outcome outcome = write(o, table, ran, started, machine, described, log);
    if (failures == 0 && !o.keepWork()) {
      deleteTree(work);
    } else if (failures > 0) {
      log.println("bench: kept the work directory with server and contender logs: " + work);
    } else {
      log.println("bench: kept the work directory (--keep-work): " + work);
    }
    return new Outcome(table, outcome.markdown(), failures);
  }

  private static int mem(BenchSystem system, Options o, Path dir, Table table, PrintStream log) {
    if (!o.only().contains("MEM")) {
      return 0;
    }
    try (BenchSystem.ServerHandle server = system.start(dir.resolve("mem"))) {
      log.printf("[%s] server pid %d at %s (fresh, for MEM)%n", system.name(), server.pid(), server.connectString());
      new Workloads(system, server, o.params(), table, dir, log).mem();
      return 0;
    } catch (Throwable e) {
      fail(system, "MEM", e, table, log);
      return 1;
    }
  }

  /**
   * W6: a fresh ensemble of every system, each warmed up in turn (the others'
   * writers paused), then measured in rounds in which the systems take turns;
   * then each one's failover trials. Stops every member it started.
   */
  private static int ensembles(List<BenchSystem> systems, Options o, Path work, Table table, PrintStream log) {
    if (!o.only().contains("W6")) {
      return 0;
    }
    List<EnsembleWorkload> ensembles = new ArrayList<>();
    for (BenchSystem system : systems) {
      ensembles.add(new EnsembleWorkload(system, o.params(), table, work.resolve(system.name()).resolve("w6"), log));
    }
    int failures = 0;
    try {
      Interleaved<EnsembleWorkload> interleaved = new Interleaved<>(ensembles, EnsembleWorkload::system,
          w -> false, o.params().rounds(), table, log);
      failures += interleaved.run("W6", EnsembleWorkload::open, EnsembleWorkload::measureRound,
          EnsembleWorkload::reportThroughput);
      for (EnsembleWorkload w : ensembles) {
        failures += interleaved.once("W6 failover", w, EnsembleWorkload::failover);
      }
    } finally {
      for (EnsembleWorkload w : ensembles) {
        try {
          w.close();
        } catch (Exception e) {
          log.printf("[%s] W6: stopping the ensemble failed: %s%n", w.system().name(), e);
        }
      }
    }
    return failures;
  }

  /** One step of a workload on one system. */
  @FunctionalInterface
  private interface Step<T> {
    void run(T workload) throws Exception;
  }

  /** One round of a workload on one system. */
  @FunctionalInterface
  private interface Round<T> {
    void run(T workload, int round) throws Exception;
  }

  /**
   * W1, W2, W3 and W5 with a server of every system running side by side (the
   * others idle), each workload in rounds in which the systems take turns;
   * then W4, one system after another. Stops every server it started.
   */
  private static int mainWorkloads(List<BenchSystem> systems, Options o, Path work, Table table, PrintStream log) {
    if (Stream.of("W1", "W2", "W3", "W5", "W4").noneMatch(o.only()::contains)) {
      return 0;
    }
    int failures = 0;
    List<Workloads> running = new ArrayList<>();
    try {
      for (BenchSystem system : systems) {
        try {
          BenchSystem.ServerHandle server = system.start(work.resolve(system.name()).resolve("main"));
          log.printf("[%s] server pid %d at %s%n", system.name(), server.pid(), server.connectString());
          running.add(new Workloads(system, server, o.params(), table, work.resolve(system.name()), log));
        } catch (Throwable e) {
          failures++;
          fail(system, "server start", e, table, log);
        }
      }
      Interleaved<Workloads> interleaved = new Interleaved<>(running, Workloads::system,
          w -> serverDied(w, log), o.params().rounds(), table, log);
      if (o.only().contains("W1")) {
        failures += interleaved.run("W1", Workloads::w1WarmUp, Workloads::w1Round, Workloads::w1Report);
      }
      if (o.only().contains("W2")) {
        failures += interleaved.run("W2", Workloads::w2WarmUp, Workloads::w2Round, Workloads::w2Report);
      }
      if (o.only().contains("W3")) {
        failures += interleaved.run("W3", Workloads::w3WarmUp, Workloads::w3Round, Workloads::w3Report);
      }
      if (o.only().contains("W5")) {
        failures += interleaved.run("W5", Workloads::w5WarmUp, Workloads::w5Round, Workloads::w5Report);
      }
      if (o.only().contains("W4")) {
        for (Workloads w : running) {
          failures += interleaved.once("W4", w, Workloads::w4);
        }
      }
    } finally {
      running.forEach(w -> {
        w.close(); // the sessions a failed workload kept
        w.server().close();
      });
    }
    return failures;
  }

  /** Whether the server of {@code w} died (then its log tail is printed). */
  private static boolean serverDied(Workloads w, PrintStream log) {
    BenchSystem.ServerHandle server = w.server();
    if (server.connectString().isEmpty() || Procs.rssBytes(server.pid()) >= 0) {
      return false;
    }
    log.printf("[%s] the server died; log tail:%n%s%n", w.system().name(), Ports.tail(server.log(), 20));
    return true;
  }

  /**
   * Runs a workload on several systems: each warms up in turn, then the
   * systems take turns round by round, the order reversed every round, so
   * that a machine whose speed drifts during the run weighs on every system
   * alike. A system whose step fails takes no further part in that workload;
   * one that {@code died} (its server), in none.
   */
  private record Interleaved<T>(List<T> running, Function<T, BenchSystem> systemOf, Predicate<T> died,
      Set<T> dead, int rounds, Table table, PrintStream log) {
    Interleaved(List<T> running, Function<T, BenchSystem> systemOf, Predicate<T> died, int rounds, Table table,
        PrintStream log) {
      this(running, systemOf, died, new HashSet<>(), rounds, table, log);
    }

    int run(String name, Step<T> warmUp, Round<T> round, Step<T> report) {
      Set<T> out = new HashSet<>(dead);
      int failures = 0;
      for (T w : running) {
        failures += attempt(name, w, out, warmUp);
      }
      for (int r = 1; r <= rounds; r++) {
        List<T> order = new ArrayList<>(running);
        if (r % 2 == 0) {
          Collections.reverse(order);
        }
        for (T w : order) {
          int number = r;
          failures += attempt(name, w, out, x -> round.run(x, number));
        }
      }
      for (T w : running) {
        failures += attempt(name, w, out, report);
      }
      return failures;
    }

    int once(String name, T w, Step<T> step) {
      return attempt(name, w, new HashSet<>(dead), step);
    }

    private int attempt(String name, T w, Set<T> out, Step<T> step) {
      if (out.contains(w)) {
        return 0;
      }
      try {
        step.run(w);
        return 0;
      } catch (Throwable e) {
        out.add(w);
        fail(systemOf.apply(w), name, e, table, log);
        if (died.test(w)) {
          dead.add(w);
        }
        return 1;
      }
    }
  }

  private static void fail(BenchSystem system, String what, Throwable e, Table table, PrintStream log) {
    log.printf("[%s] %s FAILED: %s%n", system.name(), what, e);
    e.printStackTrace(log);
    table.note(system.name() + ": " + what + " failed: " + e.toString().replace('\n', ' '));
  }

  private static Outcome write(Options o, Table table, List<String> systems, String started, List<String> machine,
      List<String> described, PrintStream log) throws IOException {
    Path out = o.out().toAbsolutePath();
    String stamp = freeName(out,
        LocalDate.now().toString() + (o.params().name().equals("full") ? "" : "-" + o.params().name()));
    Path assets = out.resolve(stamp);
    Files.createDirectories(assets);
    Report report = new Report(table, systems);
    List<String> csv = report.writeCsv(assets.resolve("raw"));
    List<String> charts;
    try {
      charts = report.writeCharts(assets);
    } catch (Throwable e) {
      log.println("bench: charts failed: " + e);
      table.note("charts failed: " + e);
      charts = List.of();
    }
    String tableText = report.markdownTable();
    String targets = report.markdownTargets();
    StringBuilder md = new StringBuilder();
    md.append("# Corral benchmarks, ").append(started).append(" (").append(o.params().name()).append(" run)\n\n");
    md.append("Command: `").append(o.command()).append("`  \n");
    md.append("Workloads and targets: issue 6. Every system ran as its own server process on 127.0.0.1, fsync ")
        .append("before ack; every client in the harness JVM (W4's contenders in JVMs of their own). W1, W2, W3 and ")
        .append("W5 ran against a server of each system at once, in ").append(o.params().rounds())
        .append(" rounds in which the systems took turns (the order reversed every round; the others' servers ")
        .append("idle meanwhile), each round a share of the sizes below; their figures are over all rounds. ")
        .append(o.only().contains("W6") ? "W6 ran a 3-server ensemble of each system, its members processes on "
            + "127.0.0.1 too; its throughput was measured the same way, in rounds between the ensembles, each "
            + "warmed up first (the others' writers paused meanwhile). " : "")
        .append("Only ratios of the same run count: runs differ by up to 2x on this machine.\n\n");
    md.append("## Machine\n\n");
    machine.forEach(m -> md.append("- ").append(m).append('\n'));
    String loadAtEnd = loadAverage();
    md.append("- load average (1, 5, 15 min) at the end: ").append(loadAtEnd).append('\n');
    log.println("bench: load average (1, 5, 15 min) at the end: " + loadAtEnd);
    md.append("\n## Systems\n\n");
    described.forEach(d -> md.append("- ").append(d).append('\n'));
    md.append("\n## Sizes\n\n- ").append(o.params()).append('\n');
    md.append("- W1-W3, W5 and MEM clients use a 10 s session timeout; W4 a 2 s one. W1, W2, W3 and W5 open their ")
        .append("sessions for the warm-up and keep them to the last round (W1: one set of 1, one of 8), so the rounds ")
        .append("measure warmed sessions, not the JIT's re-compilation after a new connection. W1: each client works on its own ")
        .append("nodes (create, then getData, setData, delete of them), synchronously; values 1 KiB; before measuring, ")
        .append("warm-up rounds of a third of the ops (1, then 8 clients) repeat for w1WarmMs. W2: one session's cycles, after a ")
        .append("warm-up of at least w2WarmMs that goes on in windows of min(2.5 s, w2WarmMs) until the cycles/s settle by W6's rule ")
        .append("below (at most w2WarmCapMs), its length reported. W3: 16 sessions, ")
        .append("one thread each, a read-modify-write of a shared counter under the lock; violations = overlapping ")
        .append("holders + lost updates. W5: a second session re-arms a data watch, then the first sets the data; ")
        .append("before the rounds, changes go on as W2's warm-up does, until the changes/s settle, its length reported. ")
        .append("MEM: a fresh server; 100 bytes per node in 100 parents; RSS read from /proc/PID/status after a 2 s ")
        .append("pause and, for the JVM servers, a full GC (`jcmd PID GC.run`); the raw RSS before that GC is ")
        .append("given too. W6: 8 sessions with every member in their connect string, each setting 1 KiB on a ")
        .append("node of its own in a loop, one request at a time, from a warm-up to the end. The warm-up lasts ")
        .append("at least w6WarmMs, then goes on in 5 s windows until the last three windows' setData/s lie within ")
        .append("10% of each other and their mean within 10% of the three before (at most w6WarmCapMs): each ")
        .append("system is measured once its servers' JIT has settled, and the warm-up's length is reported; its ")
        .append("writers then pause. Then the throughput of the ")
        .append("measured rounds (the writers resume, run 2 s, or before the first round until the rate settles ")
        .append("again by the same rule in 2.5 s windows, at most 60 s, are measured for w6MeasureMs / rounds, and ")
        .append("pause), ")
        .append("during which every member is asked for its role every 250 ms (each leader ")
        .append("change counts as spurious: nothing is injected); then trials of `kill -9` of the leader, timed ")
        .append("from the kill to the end of the first successful write issued after the process was gone (any ")
        .append("client), and to the time by which each of the 8 clients has completed such a write; a failed ")
        .append("write is retried after 5 ms, on top of each client's default retry policy; the killed member is ")
        .append("started again on its data and has rejoined before the next trial.\n");
    md.append("\n## Results\n\n");
    md.append("↑ higher is better, ↓ lower is better; ratios are Corral / reference, ✗ where Corral is worse.\n\n");
    md.append(tableText);
    md.append("\n## Targets of issue 6\n\n").append(targets);
    List<String> notes = table.notes();
    if (!notes.isEmpty()) {
      md.append("\n## Notes\n\n");
      notes.forEach(n -> md.append("- ").append(n).append('\n'));
    }
    if (!charts.isEmpty()) {
      md.append("\n## Charts\n\n");
      for (String c : charts) {
        md.append("![").append(c).append("](").append(stamp).append('/').append(c).append(")\n\n");
      }
    }
    md.append("\n## Raw samples\n\nLatencies in microseconds, one CSV per series (`system,seq,latency_us`), ")
        .append("and every table value in `summary.csv`: ");
    for (int i = 0; i < csv.size(); i++) {
      md.append(i == 0 ? "" : ", ").append('[').append(csv.get(i)).append("](").append(stamp).append("/raw/")
          .append(csv.get(i)).append(')');
    }
    md.append(".\n");
    Path file = out.resolve(stamp + ".md");
    Files.writeString(file, md.toString(), StandardCharsets.UTF_8);
    log.println();
    log.println(tableText);
    log.println(targets);
    notes.forEach(n -> log.println("note: " + n));
    log.println("bench: wrote " + file + " and " + assets);
    return new Outcome(table, file, 0);
  }

  /**
   * {@code base}, or where a result of that name is in {@code out} already (an
   * earlier run of the day), {@code base-2}, {@code base-3}, ...: a run never
   * overwrites another's table, charts or samples.
   */
  static String freeName(Path out, String base) {
    String name = base;
    for (int n = 2; Files.exists(out.resolve(name + ".md")) || Files.exists(out.resolve(name)); n++) {
      name = base + "-" + n;
    }
    return name;
  }

  static List<String> machineFacts(Path work) {
    List<String> facts = new ArrayList<>();
    facts.add("cores: " + Runtime.getRuntime().availableProcessors() + cpuModel());
    facts.add("memory: " + memTotal());
    facts.add("OS: " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
        + System.getProperty("os.arch"));
    facts.add("JVM: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
    facts.add(fsyncProbe(work));
    facts.add("load average (1, 5, 15 min) at the start: " + loadAverage()
        + " (other work on the machine competes with the servers)");
    return facts;
  }

  /** The first three fields of /proc/loadavg, or "?". */
  static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return parts.length >= 3 ? parts[0] + " " + parts[1] + " " + parts[2] : "?";
    } catch (IOException | RuntimeException e) {
      return "?";
    }
  }

  private static String cpuModel() {
    try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
      return lines.filter(l -> l.startsWith("model name")).findFirst()
          .map(l -> " (" + l.substring(l.indexOf(':') + 1).trim() + ")").orElse("");
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  private static String memTotal() {
    try (Stream<String> lines = Files.lines(Path.of("/proc/meminfo"))) {
      return lines.filter(l -> l.startsWith("MemTotal")).findFirst()
          .map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("?");
    } catch (IOException | RuntimeException e) {
      return "?";
    }
  }

  /** 200 appends of 4 KiB, each forced to disk, on the disk the servers use. */
  static String fsyncProbe(Path work) {
    Path file = work.resolve("fsync-probe");
    try {
      Files.createDirectories(work);
      Samples samples = new Samples();
      try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"); FileChannel ch = raf.getChannel()) {
        ByteBuffer block = ByteBuffer.allocate(4096);
        for (int i = 0; i < 200; i++) {
          block.clear();
          long t0 = System.nanoTime();
          ch.write(block);
          ch.force(false);
          samples.add(System.nanoTime() - t0);
        }
      }
      Files.deleteIfExists(file);
      return String.format(Locale.ROOT, "fsync probe (4 KiB append + fdatasync, 200x, in %s): p50 %.3f ms, p99 %.3f ms",
          work, samples.p50Ms(), samples.p99Ms());
    } catch (IOException e) {
      return "fsync probe failed: " + e;
    }
  }

  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException ignored) {
          // best effort
        }
      });
    } catch (IOException ignored) {
      // best effort
    }
  }
}
