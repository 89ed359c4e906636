package dev.corral.testing;

import dev.corral.proto.v1.AdminGrpc;
import dev.corral.proto.v1.MemberStatus;
import dev.corral.proto.v1.Role;
import dev.corral.proto.v1.StatusRequest;
import dev.corral.server.LoopbackPorts;
import dev.corral.server.Main;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A Corral ensemble whose members are separate JVMs on loopback, for faults an
 * in-process {@link TestingCluster} cannot make: {@link #kill9 SIGKILL} (no
 * shutdown hook, no snapshot, nothing flushed), {@link #pause SIGSTOP} /
 * {@link #resume SIGCONT}. Members run {@code dev.corral.server.Main} from this
 * JVM's class path (a test's class path has the server on it through this
 * module), each with its own config file, data directory and log under
 * {@link #directory()}.
 *
 * <pre>{@code
 * try (ProcessEnsemble ensemble = ProcessEnsemble.builder().members(3).start()) {
 *   CoordinationClient client = CorralClient.builder().connectString(ensemble.connectString()).build();
 *   ensemble.kill9(ensemble.leaderIndex());   // kill -9; the others elect a new leader
 * }
 * }</pre>
 *
 * <p>Members are numbered from 0, as in {@link TestingCluster}; member
 * {@code i} has the ensemble id {@code i + 1}. Only processes started here are
 * ever signalled, by their PID; {@link #close()} kills every one of them, and
 * so does a JVM shutdown hook if a test ends without closing. Pausing signals
 * through the {@code kill} command, so it needs a Unix-like system.
 */
public final class ProcessEnsemble implements AutoCloseable {
  /** Every member process started in this JVM and not yet known dead, for the shutdown hook. */
  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly),
        "process-ensemble-kill"));
  }

  private final Settings settings;
  private final Path directory;
  private final boolean ownsDirectory;
  private final List<Member> members;
  private boolean closed;

  private ProcessEnsemble(Settings settings, Path directory, boolean ownsDirectory, List<Member> members) {
    this.settings = settings;
    this.directory = directory;
    this.ownsDirectory = ownsDirectory;
    this.members = members;
  }

  /** A builder; only {@link Builder#members} is required. */
  public static Builder builder() {
    return new Builder();
  }

  /** The number of members. */
  public int size() {
    return members.size();
  }

  /** Where the members' configs, data and logs are. */
  public Path directory() {
    return directory;
  }

  /** Every member, as {@code 127.0.0.1:p1,127.0.0.1:p2,...}. */
  public String connectString() {
    return members.stream().map(Member::clientAddress).collect(Collectors.joining(","));
  }

  /** Member {@code i} alone. */
  public String connectString(int i) {
    return member(i).clientAddress();
  }

  /** Member {@code i}'s id in the ensemble config ({@code i + 1}). */
  public String memberId(int i) {
    return member(i).id;
  }

  /** Member {@code i}'s index from its ensemble id. */
  public int indexOf(String memberId) {
    for (int i = 0; i < members.size(); i++) {
      if (members.get(i).id.equals(memberId)) {
        return i;
      }
    }
    throw new IllegalArgumentException("no member with id '" + memberId + "'");
  }

  /** True while member {@code i}'s process runs (paused or not). */
  public synchronized boolean isRunning(int i) {
    Process process = member(i).process;
    return process != null && process.isAlive();
  }

  /** True between {@link #pause} and {@link #resume} (or a kill) of member {@code i}. */
  public synchronized boolean isPaused(int i) {
    return member(i).paused;
  }

  /** Indexes of members running and not paused: those that can answer. */
  public synchronized List<Integer> answering() {
    return IntStream.range(0, members.size()).filter(i -> isRunning(i) && !members.get(i).paused).boxed().toList();
  }

  /**
   * Member {@code i}'s own view, through the Admin service.
   *
   * @throws StatusRuntimeException if it does not answer within 2 s
   */
  public MemberStatus status(int i) {
    return AdminGrpc.newBlockingStub(member(i).admin)
        .withDeadlineAfter(2, TimeUnit.SECONDS)
        .status(StatusRequest.getDefaultInstance());
  }

  /** Member {@code i}'s status, or empty if it does not answer now. */
  public Optional<MemberStatus> tryStatus(int i) {
    try {
      return Optional.of(status(i));
    } catch (StatusRuntimeException notAnswering) {
      return Optional.empty();
    }
  }

  /**
   * Waits until every answering member follows one leader, in one term, that
   * calls itself leader, and returns its index.
   *
   * @throws IllegalStateException if that does not happen within the ready timeout
   */
  public int leaderIndex() throws InterruptedException {
    long deadline = System.nanoTime() + settings.readyTimeout.toNanos();
    String last = "no member answered";
    while (true) {
      List<MemberStatus> views = new ArrayList<>();
      for (int i : answering()) {
        tryStatus(i).ifPresent(views::add);
      }
      Optional<Integer> leader = agreedLeader(views);
      if (leader.isPresent()) {
        return leader.get();
      }
      if (!views.isEmpty()) {
        last = views.stream().map(ProcessEnsemble::describe).collect(Collectors.joining("; "));
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("the members did not agree on a leader within "
            + settings.readyTimeout.toSeconds() + " s; last seen: " + last);
      }
      Thread.sleep(100);
    }
  }

  private Optional<Integer> agreedLeader(List<MemberStatus> views) {
    if (views.size() < members.size() / 2 + 1) {
      return Optional.empty();
    }
    MemberStatus first = views.get(0);
    String leaderId = first.getLeaderId();
    if (leaderId.isEmpty()) {
      return Optional.empty();
    }
    for (MemberStatus view : views) {
      if (!view.getLeaderId().equals(leaderId) || view.getTerm() != first.getTerm()) {
        return Optional.empty();
      }
      if (view.getMemberId().equals(leaderId) && view.getRole() != Role.LEADER) {
        return Optional.empty();
      }
    }
    boolean leaderAnswered = views.stream().anyMatch(v -> v.getMemberId().equals(leaderId));
    return leaderAnswered ? Optional.of(indexOf(leaderId)) : Optional.empty();
  }

  /** SIGKILL: the member dies at once, without its shutdown hook. Waits for the exit. */
  public void kill9(int i) throws InterruptedException {
    Process process;
    synchronized (this) {
      process = member(i).process;
      member(i).paused = false;
    }
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("member " + i + " (pid " + process.pid() + ") survived SIGKILL for 30 s");
    }
    LIVE.remove(process);
  }

  /** SIGSTOP: the member freezes (its sockets stay open, nothing answers) until {@link #resume}. */
  public synchronized void pause(int i) throws InterruptedException {
    signal(i, "-STOP");
    member(i).paused = true;
  }

  /** SIGCONT after {@link #pause}. */
  public synchronized void resume(int i) throws InterruptedException {
    signal(i, "-CONT");
    member(i).paused = false;
  }

  /**
   * Starts member {@code i} again with its data and ports (killing it with
   * SIGKILL first if it still runs) and waits until it answers its Admin
   * status.
   */
  public void restart(int i) throws InterruptedException {
    kill9(i);
    launch(i);
    awaitAnswering(i);
  }

  /**
   * Starts every member that is down (after {@link #kill9} of all, say), all
   * at once, and waits until each answers its Admin status.
   */
  public void restartAll() throws InterruptedException {
    List<Integer> down = IntStream.range(0, members.size()).filter(i -> !isRunning(i)).boxed().toList();
    for (int i : down) {
      launch(i);
    }
    for (int i : down) {
      awaitAnswering(i);
    }
  }

  /** What each member says about itself, and the end of its log: for failure messages. */
  public String describe() {
    StringBuilder text = new StringBuilder("ensemble in " + directory + ":\n");
    for (int i = 0; i < members.size(); i++) {
      Member m = members.get(i);
      String state = !isRunning(i) ? "down" : isPaused(i) ? "paused"
          : tryStatus(i).map(ProcessEnsemble::describe).orElse("not answering");
      text.append("  member ").append(i).append(" (id ").append(m.id).append(", ").append(m.clientAddress())
          .append("): ").append(state).append('\n');
      for (String line : tail(m.log, 8)) {
        text.append("    | ").append(line).append('\n');
      }
    }
    return text.toString();
  }

  /**
   * Kills every member (SIGKILL) and closes the admin channels; deletes the
   * directory unless the builder was given it. Closing twice is harmless.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    for (int i = 0; i < members.size(); i++) {
      try {
        kill9(i);
      } catch (InterruptedException e) {
        members.forEach(m -> {
          if (m.process != null) {
            m.process.destroyForcibly();
          }
        });
        Thread.currentThread().interrupt();
        break;
      } catch (RuntimeException e) {
        // go on killing the others
      }
    }
    members.forEach(m -> m.admin.shutdownNow());
    if (ownsDirectory) {
      TestingResources.deleteRecursively(directory);
    }
  }

  private Member member(int i) {
    Objects.checkIndex(i, members.size());
    return members.get(i);
  }

  private void signal(int i, String signal) throws InterruptedException {
    Process process = member(i).process;
    if (process == null || !process.isAlive()) {
      throw new IllegalStateException("member " + i + " is not running");
    }
    try {
      Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid()))
          .redirectErrorStream(true).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        kill.destroyForcibly();
        throw new IllegalStateException("kill " + signal + " " + process.pid() + " failed: "
            + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not run kill " + signal, e);
    }
  }

  private synchronized void launch(int i) {
    if (closed) {
      throw new IllegalStateException("the ensemble was closed");
    }
    Member m = member(i);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(settings.jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(),
        "--config", m.config.toString()));
    try {
      Files.writeString(m.log, "=== starting member " + m.id + " ===\n", StandardCharsets.UTF_8,
          java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
      Process process = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(m.log.toFile()))
          .start();
      LIVE.add(process);
      m.process = process;
      m.paused = false;
    } catch (IOException e) {
      throw new UncheckedIOException("could not start member " + i, e);
    }
  }

  private void awaitAnswering(int i) throws InterruptedException {
    long deadline = System.nanoTime() + settings.readyTimeout.toNanos();
    while (tryStatus(i).isEmpty()) {
      if (!isRunning(i)) {
        throw new IllegalStateException("member " + i + " exited before serving\n" + describe());
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("member " + i + " did not answer its Admin status within "
            + settings.readyTimeout.toSeconds() + " s\n" + describe());
      }
      Thread.sleep(100);
    }
  }

  private static String describe(MemberStatus s) {
    return "id " + s.getMemberId() + " " + s.getRole() + " term " + s.getTerm() + " leader '" + s.getLeaderId()
        + "' zxid 0x" + Long.toHexString(s.getAppliedZxid()) + " nodes " + s.getNodes() + " sessions "
        + s.getSessions() + " digest " + s.getTreeDigest();
  }

  /** The last {@code lines} lines of a log, stack frames left out (the exception lines are kept). */
  private static List<String> tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8).stream()
          .filter(line -> !line.startsWith("\tat ") && !line.matches("\\s*\\.\\.\\. \\d+ more"))
          .toList();
      return all.subList(Math.max(0, all.size() - lines), all.size());
    } catch (IOException | UncheckedIOException e) {
      return List.of("(no log: " + e.getMessage() + ")");
    }
  }

  private static final class Member {
    final String id;
    final int clientPort;
    final Path config;
    final Path log;
    final ManagedChannel admin;
    Process process;
    boolean paused;

    Member(String id, int clientPort, Path config, Path log) {
      this.id = id;
      this.clientPort = clientPort;
      this.config = config;
      this.log = log;
      this.admin = NettyChannelBuilder.forAddress("127.0.0.1", clientPort).usePlaintext().build();
    }

    String clientAddress() {
      return "127.0.0.1:" + clientPort;
    }
  }

  /** What the running ensemble still needs of its builder (the rest went into the members' config files). */
  private record Settings(List<String> jvmOptions, Duration readyTimeout) {}

  /** Builds a {@link ProcessEnsemble}; each setting may be given once. */
  public static final class Builder {
    private Integer size;
    private Duration tick;
    private Duration electionTimeoutMin;
    private Duration electionTimeoutMax;
    private Duration operationTimeout;
    private List<String> jvmOptions;
    private Duration readyTimeout;
    private Path directory;

    private Builder() {}

    /** How many members (1 to 9). Required. */
    public Builder members(int size) {
      once(this.size, "members");
      if (size < 1 || size > 9) {
        throw new IllegalArgumentException("an ensemble has 1 to 9 members, not " + size);
      }
      this.size = size;
      return this;
    }

    /** The session tick of every member (the server's default if not given). */
    public Builder tick(Duration tick) {
      once(this.tick, "tick");
      this.tick = Objects.requireNonNull(tick, "tick");
      return this;
    }

    /** A member that hears no leader for a random time in [min, max] starts an election. */
    public Builder electionTimeout(Duration min, Duration max) {
      once(this.electionTimeoutMin, "electionTimeout");
      this.electionTimeoutMin = Objects.requireNonNull(min, "min");
      this.electionTimeoutMax = Objects.requireNonNull(max, "max");
      return this;
    }

    /** How long a member waits for a write to be applied before failing it. */
    public Builder operationTimeout(Duration timeout) {
      once(this.operationTimeout, "operationTimeout");
      this.operationTimeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /** Options for every member's JVM (small heaps, say). */
    public Builder jvmOptions(String... options) {
      once(this.jvmOptions, "jvmOptions");
      this.jvmOptions = List.of(options);
      return this;
    }

    /** How long to wait for a member to answer, or for a leader; 60 s if not given. */
    public Builder readyTimeout(Duration timeout) {
      once(this.readyTimeout, "readyTimeout");
      this.readyTimeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * Where the members' configs, data and logs go; the caller owns it (keep
     * it after a failed test to read the logs). A temporary directory, deleted
     * on close, if not given.
     */
    public Builder directory(Path directory) {
      once(this.directory, "directory");
      this.directory = Objects.requireNonNull(directory, "directory");
      return this;
    }

    /**
     * Writes every member's config, starts them all and waits until they
     * answer and agree on a leader.
     *
     * @throws IllegalStateException if {@link #members} was not given, or the
     *     members did not agree on a leader within the ready timeout (every
     *     process started is killed first)
     */
    public ProcessEnsemble start() throws InterruptedException {
      if (size == null) {
        throw new IllegalStateException("members(n) is required");
      }
      boolean owned = this.directory == null;
      Path directory = owned ? TestingResources.newTempDir() : this.directory;
      Settings settings = new Settings(jvmOptions == null ? List.of() : jvmOptions,
          readyTimeout == null ? Duration.ofSeconds(60) : readyTimeout);
      List<Integer> ports = LoopbackPorts.free(2 * size);
      StringBuilder servers = new StringBuilder();
      for (int i = 0; i < size; i++) {
        servers.append("server.").append(i + 1).append("=127.0.0.1:").append(ports.get(i)).append(':')
            .append(ports.get(size + i)).append('\n');
      }
      List<Member> members = new ArrayList<>();
      try {
        for (int i = 0; i < size; i++) {
          String id = Integer.toString(i + 1);
          Path dir = Files.createDirectories(directory.resolve("member-" + id));
          StringBuilder config = new StringBuilder("id=" + id + "\n").append(servers)
              .append("data-dir=").append(dir.resolve("data")).append('\n');
          if (tick != null) {
            config.append("tick=").append(tick.toMillis()).append("ms\n");
          }
          if (electionTimeoutMin != null) {
            config.append("election-timeout-min=").append(electionTimeoutMin.toMillis()).append("ms\n")
                .append("election-timeout-max=").append(electionTimeoutMax.toMillis()).append("ms\n");
          }
          if (operationTimeout != null) {
            config.append("operation-timeout=").append(operationTimeout.toMillis()).append("ms\n");
          }
          Path file = Files.writeString(dir.resolve("corral.conf"), config, StandardCharsets.UTF_8);
          members.add(new Member(id, ports.get(i), file, dir.resolve("server.log")));
        }
      } catch (IOException e) {
        members.forEach(m -> m.admin.shutdownNow());
        if (owned) {
          TestingResources.deleteRecursively(directory);
        }
        throw new UncheckedIOException("could not write the members' configs under " + directory, e);
      }
      ProcessEnsemble ensemble = new ProcessEnsemble(settings, directory, owned, members);
      try {
        for (int i = 0; i < size; i++) {
          ensemble.launch(i);
        }
        for (int i = 0; i < size; i++) {
          ensemble.awaitAnswering(i);
        }
        ensemble.leaderIndex();
        return ensemble;
      } catch (InterruptedException | RuntimeException e) {
        ensemble.close();
        throw e;
      }
    }

    private static void once(Object current, String setting) {
      if (current != null) {
        throw new IllegalStateException(setting + " was already set to " + current);
      }
    }
  }
}
