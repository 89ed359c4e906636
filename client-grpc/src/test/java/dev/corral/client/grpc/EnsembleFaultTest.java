package dev.corral.client.grpc;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.corral.client.Code;
import dev.corral.client.CoordinationException;
import dev.corral.client.CreateMode;
import dev.corral.client.Created;
import dev.corral.client.NoNodeException;
import dev.corral.client.NodeData;
import dev.corral.client.NodeExistsException;
import dev.corral.client.Stat;
import dev.corral.proto.v1.MemberStatus;
import dev.corral.testing.ProcessEnsemble;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A three-member ensemble of separate JVMs under SIGKILL and SIGSTOP, written to
 * through the SDK: no acknowledged write is lost or changed, every member ends
 * with the same tree, every member takes writes again once the faults are over,
 * and without a majority a write fails with a clear error instead of hanging. A
 * failed test leaves the members' logs in its temporary directory (named in the
 * failure, with each member's state and last log lines). Each test prints its
 * time line (faults, connection states, progress) to its output.
 */
class EnsembleFaultTest {
  private static final Duration TICK = Duration.ofSeconds(1);
  private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(3);
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  /** How long a member that answers may take to get a write through once the faults are over. */
  private static final Duration LIVENESS = Duration.ofSeconds(30);
  /** Why a write may fail while members die and come back: each leaves its outcome unknown. */
  private static final Set<Code> FAULT_CODES = EnumSet.of(Code.CONNECTION_LOSS, Code.OPERATION_TIMEOUT,
      Code.NOT_READY, Code.SERVER_BEHIND, Code.SESSION_EXPIRED, Code.SESSION_MOVED);

  private static ProcessEnsemble.Builder threeMembers() {
    return ProcessEnsemble.builder()
        .members(3)
        .tick(TICK)
        .operationTimeout(OPERATION_TIMEOUT)
        .jvmOptions("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
  }

  @Test
  void everyAcknowledgedWriteSurvivesLeaderAndFollowerKillsAPauseAndAWholeEnsembleKill(
      @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir) throws Exception {
    try (ProcessEnsemble ensemble = threeMembers().directory(dir).start()) {
      diagnosed(ensemble, () -> {
        Writers writers = Writers.start(ensemble.connectString(), 3);
        List<String> stuck = new ArrayList<>();
        try {
          writers.awaitMore(50, "before any fault");

          int leader = ensemble.leaderIndex();
          writers.note("kill -9 of the leader, member " + leader);
          ensemble.kill9(leader);
          writers.awaitMore(30, "after kill -9 of the leader (member " + leader + ")");
          writers.note("restarting member " + leader);
          ensemble.restart(leader);
          writers.awaitMore(30, "after the old leader restarted");

          int follower = (ensemble.leaderIndex() + 1) % ensemble.size();
          writers.note("kill -9 of a follower, member " + follower);
          ensemble.kill9(follower);
          writers.awaitMore(30, "after kill -9 of a follower (member " + follower + ")");
          writers.note("restarting member " + follower);
          ensemble.restart(follower);

          int paused = ensemble.leaderIndex();
          writers.note("SIGSTOP of the leader, member " + paused);
          ensemble.pause(paused);
          Thread.sleep(4_000); // how long the leader stays frozen: the fault itself, not a wait for an event
          writers.note("SIGCONT of member " + paused);
          ensemble.resume(paused);
          writers.awaitMore(30, "after SIGSTOP / SIGCONT of the leader (member " + paused + ")");
          stuck.addAll(membersNotTakingWrites(ensemble, "after the faults"));

          writers.note("kill -9 of every member");
          for (int i = 0; i < ensemble.size(); i++) {
            ensemble.kill9(i);
          }
          ensemble.restartAll();
          writers.note("every member restarted");
          ensemble.leaderIndex();
          writers.awaitMore(30, "after kill -9 of every member and a restart of all");
          stuck.addAll(membersNotTakingWrites(ensemble, "after the restart of all"));
        } finally {
          writers.close();
        }
        System.out.println(writers.summary());
        writers.assertNoUnexpectedFailures();

        Map<String, PathRecord> expected = writers.records();
        long lastAcked = writers.lastAckedZxid();
        awaitSameTreeEverywhere(ensemble, lastAcked);
        for (int i = 0; i < ensemble.size(); i++) {
          try (CorralClient reader = connect(ensemble.connectString(i))) {
            assertHolds(reader, expected, "member " + i);
          }
        }
        awaitSameTreeEverywhere(ensemble, lastAcked);
        stuck.addAll(0, writers.stalled());
        assertTrue(stuck.isEmpty(), "the data survived, but writes did not get through:\n"
            + String.join("\n", stuck));
      });
    }
  }

  /** Which member is left running when the other two are killed. */
  enum Survivor { LEADER, FOLLOWER }

  @ParameterizedTest(name = "the survivor is the {0}")
  @EnumSource(Survivor.class)
  void withoutAMajorityAWriteFailsClearlyAndWritesResumeWhenAMemberReturns(Survivor survivor,
      @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir) throws Exception {
    try (ProcessEnsemble ensemble = threeMembers().directory(dir).start()) {
      diagnosed(ensemble, () -> {
        try (CorralClient client = CorralClient.builder().connectString(ensemble.connectString())
            .sessionTimeout(Duration.ofSeconds(20)).connectionTimeout(Duration.ofSeconds(5)).build()) {
          assertTrue(client.blockUntilConnected(60, TimeUnit.SECONDS), "connected");
          await("the first write").atMost(PATIENCE).ignoreExceptions().until(() -> {
            createIfMissing(client, "/quorum", "before");
            return true;
          });

          int leader = ensemble.leaderIndex();
          List<Integer> killed = IntStream.range(0, ensemble.size())
              .filter(i -> survivor == Survivor.LEADER ? i != leader : i != (leader + 1) % ensemble.size())
              .boxed().toList();
          for (int i : killed) {
            ensemble.kill9(i);
          }

          long started = System.nanoTime();
          // a guard against a hang, not a claim about speed: the client's retries are bounded
          CoordinationException failure = assertTimeoutPreemptively(Duration.ofSeconds(150),
              () -> assertThrows(CoordinationException.class,
                  () -> client.setData("/quorum", "during".getBytes(UTF_8), -1),
                  "a write without a majority must fail"));
          System.out.printf("survivor %s: the write failed after %d ms with %s: %s%n", survivor,
              TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), failure.code(), failure.getMessage());
          assertTrue(EnumSet.of(Code.OPERATION_TIMEOUT, Code.NOT_READY, Code.CONNECTION_LOSS).contains(failure.code()),
              "a retryable 'may or may not have happened' failure, not " + failure.code() + ": " + failure);
          assertNotNull(failure.getMessage());
          assertFalse(failure.getMessage().isBlank(), "the failure says what went wrong");

          ensemble.restart(killed.get(0));
          await("a write once two members are up").atMost(PATIENCE).ignoreExceptions().until(() -> {
            client.setData("/quorum", "after".getBytes(UTF_8), -1);
            return true;
          });
          assertEquals("after", new String(client.getData("/quorum").data(), UTF_8));
        }
      });
    }
  }

  private static void createIfMissing(CorralClient client, String path, String data)
      throws CoordinationException, InterruptedException {
    try {
      client.create(path, data.getBytes(UTF_8), CreateMode.PERSISTENT);
    } catch (NodeExistsException alreadyThere) {
      // an earlier attempt whose answer was lost made it
    }
  }

  /**
   * Whether a client of each member alone gets a write through it within
   * {@link #LIVENESS}: no member is left unable to take writes. Returns what
   * went wrong (with every member's state then), so that the test goes on to
   * check the data before it fails.
   */
  private static List<String> membersNotTakingWrites(ProcessEnsemble ensemble, String when)
      throws InterruptedException {
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < ensemble.size(); i++) {
      String path = "/member-" + i;
      CorralClient client = CorralClient.builder().connectString(ensemble.connectString(i))
          .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(10)).build();
      try {
        if (!client.blockUntilConnected(LIVENESS.toSeconds(), TimeUnit.SECONDS)) {
          problems.add("member " + i + " opened no session within " + LIVENESS.toSeconds() + " s " + when + "\n"
              + ensemble.describe());
          continue;
        }
        AtomicReference<CoordinationException> last = new AtomicReference<>();
        try {
          await("a write through member " + i + " alone " + when).atMost(LIVENESS).until(() -> {
            try {
              createIfMissing(client, path, "");
              client.setData(path, when.getBytes(UTF_8), -1);
              return true;
            } catch (CoordinationException e) {
              last.set(e);
              return false;
            }
          });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
          problems.add("member " + i + " took no write within " + LIVENESS.toSeconds() + " s " + when
              + "; last failure: " + last.get() + "\n" + ensemble.describe());
        }
      } finally {
        client.close();
      }
    }
    return problems;
  }

  private static CorralClient connect(String connectString) throws InterruptedException {
    CorralClient client = CorralClient.builder().connectString(connectString)
        .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(10)).build();
    if (!client.blockUntilConnected(60, TimeUnit.SECONDS)) {
      client.close();
      fail("no session at " + connectString + " within 60 s");
    }
    return client;
  }

  /** Every member answers with the same applied zxid and tree digest, at least {@code lastAcked}. */
  private static void awaitSameTreeEverywhere(ProcessEnsemble ensemble, long lastAcked) {
    AtomicReference<List<MemberStatus>> seen = new AtomicReference<>(List.of());
    try {
      await("every member applied the same changes").atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
          .until(() -> {
            List<MemberStatus> statuses = new ArrayList<>();
            for (int i = 0; i < ensemble.size(); i++) {
              ensemble.tryStatus(i).ifPresent(statuses::add);
            }
            seen.set(statuses);
            return statuses.size() == ensemble.size()
                && statuses.stream().allMatch(s -> s.getAppliedZxid() >= lastAcked
                    && s.getAppliedZxid() == statuses.get(0).getAppliedZxid()
                    && s.getTreeDigest().equals(statuses.get(0).getTreeDigest()));
          });
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      fail("members did not converge on one tree at zxid >= 0x" + Long.toHexString(lastAcked) + "; last seen:\n"
          + String.join("\n", seen.get().stream().map(Object::toString).toList()), e);
    }
  }

  /** Reads every recorded path through {@code reader}, pipelined, and checks it against what was acknowledged. */
  private static void assertHolds(CorralClient reader, Map<String, PathRecord> expected, String where)
      throws Exception {
    List<String> problems = Collections.synchronizedList(new ArrayList<>());
    List<Map.Entry<String, PathRecord>> entries = new ArrayList<>(expected.entrySet());
    for (int from = 0; from < entries.size(); from += 256) {
      List<CompletableFuture<Void>> batch = new ArrayList<>();
      for (Map.Entry<String, PathRecord> entry : entries.subList(from, Math.min(entries.size(), from + 256))) {
        batch.add(reader.async().getData(entry.getKey()).handle((read, failure) -> {
          String problem = entry.getValue().check(read, failure);
          if (problem != null) {
            problems.add(entry.getKey() + ": " + problem);
          }
          return null;
        }));
      }
      CompletableFuture.allOf(batch.toArray(CompletableFuture[]::new)).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }
    List<String> extra = new ArrayList<>(reader.getChildren("/fault"));
    extra.removeIf(name -> expected.containsKey("/fault/" + name));
    assertTrue(problems.isEmpty(), where + ": " + problems.size() + " of " + expected.size()
        + " paths differ from what was acknowledged, e.g. " + problems.subList(0, Math.min(20, problems.size())));
    assertTrue(extra.isEmpty(), where + ": nodes no writer ever tried to create: " + extra);
  }

  private interface Body {
    void run() throws Exception;
  }

  /** Runs {@code body}; a failure carries every member's state and last log lines. */
  private static void diagnosed(ProcessEnsemble ensemble, Body body) throws Exception {
    try {
      body.run();
    } catch (Exception | AssertionError failure) {
      failure.addSuppressed(new Exception(ensemble.describe()));
      throw failure;
    }
  }

  /** What a write acknowledged with this Stat left at its path. */
  record Acked(long czxid, long mzxid, String data) {
    @Override
    public String toString() {
      return "'" + data + "' czxid 0x" + Long.toHexString(czxid) + " mzxid 0x" + Long.toHexString(mzxid);
    }
  }

  /**
   * What one path must hold at the end: the state of its last acknowledged
   * write, unless a later write on it failed without an answer (it may have
   * happened: then either is right, and the path got no more writes); nothing
   * if its only create failed with NOT_READY (the write did not happen).
   */
  static final class PathRecord {
    private Acked acked;
    private String unsure;
    private String refused;

    /** Null if {@code read} (or {@code failure}) is a state this path may be in, else what is wrong. */
    String check(NodeData read, Throwable failure) {
      Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
      if (cause instanceof NoNodeException) {
        return acked == null ? null : "missing; acknowledged " + acked;
      }
      if (cause != null) {
        return "read failed: " + cause;
      }
      String data = new String(read.data(), UTF_8);
      Stat stat = read.stat();
      if (acked == null && refused != null) {
        return "holds '" + data + "' though its create failed with NOT_READY, which says it did not happen";
      }
      if (acked == null) {
        return data.equals(unsure) ? null : "holds '" + data + "' though only '" + unsure + "' was ever written";
      }
      if (stat.czxid() != acked.czxid()) {
        return "czxid 0x" + Long.toHexString(stat.czxid()) + ", acknowledged " + acked;
      }
      if (data.equals(acked.data()) && stat.mzxid() == acked.mzxid()) {
        return null;
      }
      if (unsure != null && data.equals(unsure) && stat.mzxid() > acked.mzxid()) {
        return null;
      }
      return "holds '" + data + "' mzxid 0x" + Long.toHexString(stat.mzxid()) + "; acknowledged " + acked
          + (unsure == null ? "" : ", or '" + unsure + "' from a write whose answer was lost");
    }
  }

  /**
   * One writer: its own client and paths; creates new nodes and sets its
   * earlier ones, recording what each acknowledged write left behind.
   */
  private static final class Writer implements Runnable {
    private final String name;
    private final CorralClient client;
    private final AtomicLong acks;
    private final Random random;
    private final Map<String, PathRecord> paths = new HashMap<>();
    private final List<String> writable = new ArrayList<>();
    private final Map<Code, Integer> failures = new EnumMap<>(Code.class);
    private final Map<Code, String> firstFailure = new EnumMap<>(Code.class);
    private final AtomicLong failed;
    private final AtomicLong ownAcks = new AtomicLong();
    private final List<String> outOfOrder = new ArrayList<>();
    private volatile boolean stopped;
    private long lastZxid;

    Writer(String name, CorralClient client, AtomicLong acks, AtomicLong failed, long seed) {
      this.name = name;
      this.client = client;
      this.acks = acks;
      this.failed = failed;
      this.random = new Random(seed);
    }

    @Override
    public void run() {
      int seq = 0;
      while (!stopped) {
        seq++;
        boolean create = writable.isEmpty() || random.nextInt(10) < 3;
        String path = create ? "/fault/" + name + "-" + seq : writable.get(random.nextInt(writable.size()));
        String data = name + "#" + seq;
        try {
          long zxid;
          if (create) {
            Created created = client.create(path, data.getBytes(UTF_8), CreateMode.PERSISTENT);
            PathRecord record = new PathRecord();
            record.acked = new Acked(created.stat().czxid(), created.stat().mzxid(), data);
            paths.put(path, record);
            writable.add(path);
            zxid = created.stat().czxid();
          } else {
            Stat stat = client.setData(path, data.getBytes(UTF_8), -1);
            paths.get(path).acked = new Acked(stat.czxid(), stat.mzxid(), data);
            zxid = stat.mzxid();
          }
          if (zxid <= lastZxid) {
            outOfOrder.add(path + " acknowledged at zxid 0x" + Long.toHexString(zxid) + " after 0x"
                + Long.toHexString(lastZxid));
          }
          lastZxid = zxid;
          acks.incrementAndGet();
          ownAcks.incrementAndGet();
          Thread.sleep(20); // pacing, so that three members and this JVM share two cores
        } catch (CoordinationException e) {
          failures.merge(e.code(), 1, Integer::sum);
          firstFailure.putIfAbsent(e.code(), e.getMessage());
          failed.incrementAndGet();
          PathRecord record = paths.computeIfAbsent(path, p -> new PathRecord());
          if (create && e.code() == Code.NOT_READY) {
            record.refused = data; // a create is tried once, and NOT_READY says it did not happen
          } else {
            record.unsure = data;
            writable.remove(path);
          }
          try {
            Thread.sleep(100);
          } catch (InterruptedException interrupted) {
            return;
          }
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  /** Writers on their own threads and clients, each client given every member. */
  private static final class Writers implements AutoCloseable {
    private final List<Writer> writers;
    private final List<Thread> threads;
    private final AtomicLong acks;
    private final AtomicLong failed;
    private final List<Throwable> crashes = Collections.synchronizedList(new ArrayList<>());
    private final List<String> stalled = new ArrayList<>();
    private final long startedAt;

    private Writers(List<Writer> writers, AtomicLong acks, AtomicLong failed, long startedAt) {
      this.writers = writers;
      this.startedAt = startedAt;
      this.acks = acks;
      this.failed = failed;
      this.threads = new ArrayList<>();
      for (Writer writer : writers) {
        Thread thread = new Thread(writer, "writer-" + writer.name);
        thread.setUncaughtExceptionHandler((t, e) -> crashes.add(e));
        threads.add(thread);
      }
      threads.forEach(Thread::start);
    }

    static Writers start(String connectString, int count) throws Exception {
      AtomicLong acks = new AtomicLong();
      AtomicLong failed = new AtomicLong();
      long startedAt = System.nanoTime();
      List<Writer> writers = new ArrayList<>();
      try {
        for (int i = 0; i < count; i++) {
          String name = "w" + i;
          CorralClient client = connect(connectString);
          client.addConnectionStateListener((c, state) -> System.out.printf("%6.1f s: %s session 0x%s %s%n",
              (System.nanoTime() - startedAt) / 1e9, name, Long.toHexString(c.sessionId()), state));
          writers.add(new Writer(name, client, acks, failed, 42 + i));
        }
        CorralClient first = writers.get(0).client;
        await("the parent node").atMost(PATIENCE).ignoreExceptions().until(() -> {
          createIfMissing(first, "/fault", "");
          return true;
        });
      } catch (Exception | AssertionError e) {
        writers.forEach(w -> w.client.close());
        throw e;
      }
      return new Writers(writers, acks, failed, startedAt);
    }

    /**
     * Waits until {@code more} further writes are acknowledged (the writers
     * keep going through faults), then up to {@link EnsembleFaultTest#LIVENESS} until every
     * writer has had one more: a writer that has not is noted in
     * {@link #stalled()} (a client stuck on a member that takes no writes),
     * and the test goes on to check the data.
     */
    void awaitMore(int more, String when) {
      long target = acks.get() + more;
      long[] own = writers.stream().mapToLong(w -> w.ownAcks.get()).toArray();
      await(more + " more acknowledged writes " + when).atMost(PATIENCE).pollInterval(Duration.ofMillis(50))
          .until(() -> {
            if (!crashes.isEmpty()) {
              throw new AssertionError("a writer crashed", crashes.get(0));
            }
            return acks.get() >= target;
          });
      try {
        await("one more acknowledged write from each writer " + when).atMost(LIVENESS)
            .pollInterval(Duration.ofMillis(50))
            .until(() -> IntStream.range(0, own.length).allMatch(i -> writers.get(i).ownAcks.get() > own[i]));
      } catch (org.awaitility.core.ConditionTimeoutException e) {
        IntStream.range(0, own.length).filter(i -> writers.get(i).ownAcks.get() == own[i]).forEach(i ->
            stalled.add(writers.get(i).name + " (session 0x" + Long.toHexString(writers.get(i).client.sessionId())
                + ", " + writers.get(i).client.state() + ") got no write through for " + LIVENESS.toSeconds()
                + " s " + when + "; its failures so far: " + writers.get(i).failures));
      }
      System.out.printf("%6.1f s: %d acknowledged writes (%d failed so far), %d more %s%n",
          (System.nanoTime() - startedAt) / 1e9, acks.get(), failed.get(), more, when);
    }

    /** Writers that made no progress for a while after a fault. */
    List<String> stalled() {
      return stalled;
    }

    /** Prints what the test does now, on the writers' time line. */
    void note(String what) {
      System.out.printf("%6.1f s: %s (%d acknowledged, %d failed so far)%n",
          (System.nanoTime() - startedAt) / 1e9, what, acks.get(), failed.get());
    }

    Map<String, PathRecord> records() {
      Map<String, PathRecord> all = new HashMap<>();
      writers.forEach(w -> all.putAll(w.paths));
      return all;
    }

    long lastAckedZxid() {
      return writers.stream().mapToLong(w -> w.lastZxid).max().orElse(0);
    }

    void assertNoUnexpectedFailures() {
      assertTrue(crashes.isEmpty(), "writers crashed: " + crashes);
      for (Writer w : writers) {
        assertTrue(w.outOfOrder.isEmpty(), w.name + ": a write acknowledged after another got a lower zxid: "
            + w.outOfOrder);
        Set<Code> unexpected = EnumSet.noneOf(Code.class);
        unexpected.addAll(w.failures.keySet());
        unexpected.removeAll(FAULT_CODES);
        assertTrue(unexpected.isEmpty(), w.name + " saw failures no fault explains: " + w.failures);
      }
    }

    String summary() {
      StringBuilder text = new StringBuilder("writers: " + acks.get() + " acknowledged writes on "
          + records().size() + " paths, last zxid 0x" + Long.toHexString(lastAckedZxid()));
      for (Writer w : writers) {
        text.append("; ").append(w.name).append(" failures ").append(w.failures);
      }
      Map<Code, String> examples = new EnumMap<>(Code.class);
      writers.forEach(w -> w.firstFailure.forEach(examples::putIfAbsent));
      examples.forEach((code, message) -> text.append("\n  e.g. ").append(code).append(": ").append(message));
      return text.toString();
    }

    /** Stops every writer (a write in progress finishes or fails first), then closes the clients. */
    @Override
    public void close() throws InterruptedException {
      writers.forEach(w -> w.stopped = true);
      try {
        for (Thread thread : threads) {
          thread.join(TimeUnit.SECONDS.toMillis(120));
          if (thread.isAlive()) {
            thread.interrupt();
            thread.join(TimeUnit.SECONDS.toMillis(10));
            crashes.add(new AssertionError(thread.getName() + " did not stop within 120 s"));
          }
        }
      } finally {
        writers.forEach(w -> w.client.close());
      }
    }
  }
}
