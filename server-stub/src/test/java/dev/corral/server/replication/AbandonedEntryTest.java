package dev.corral.server.replication;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.corral.proto.internal.Txn;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.server.tree.TxnResult;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three members in one JVM. A follower forwards an entry while a majority is
 * down; its proposal times out with the outcome unknown, and the caller moves
 * on (a stream ends, its client re-attaches elsewhere). The entry must not
 * reach the log after that: a session's attach that did would move the session
 * off the stream its client re-attached through since.
 */
class AbandonedEntryTest {
  private static final long WAIT_SECONDS = 60;
  private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(2);
  /** How long one attempt of a Ratis client waits for an answer (Ratis's default, which we keep). */
  private static final Duration RATIS_CLIENT_REQUEST_TIMEOUT = Duration.ofSeconds(3);

  @TempDir
  Path dataDirs;

  private final List<RaftMember> members = new ArrayList<>();
  private final List<RaftReplicator> running = new ArrayList<>();

  @AfterEach
  void closeEverything() {
    running.forEach(RaftReplicator::close);
  }

  @Test
  void aForwardedEntryWhoseProposalTimedOutIsNotAppliedWhenAMajorityReturns() throws Exception {
    members.addAll(LocalMembers.onFreePorts("1", "2", "3"));
    List<RecordingState> states = List.of(new RecordingState(), new RecordingState(), new RecordingState());
    // 2-4 s election timeouts: the follower goes on taking the closed leader for its leader (its watch looks
    // at the leader's port after 1.2 s of silence), so it sends the entry on at once
    startAll(List.of(0, 1, 2), states, Duration.ofSeconds(2));
    int leader = running.indexOf(LocalMembers.awaitLeader(running));
    int follower = (leader + 1) % 3;
    int other = (leader + 2) % 3;
    RaftReplicator forwarding = running.get(follower);
    Txns session = Txns.openSession(forwarding);
    await().atMost(WAIT_SECONDS, TimeUnit.SECONDS).until(() -> running.get(other).view().leaderId()
        .equals(running.get(leader).view().memberId()));

    running.get(other).close(); // first, so that no other member can be elected in between
    running.get(leader).close();
    // the old leader's port takes connections and never answers: the forwarding client's attempts there hang,
    // so it still holds the entry, to retry, when the proposal times out, and long after
    try (ServerSocket blackHole = blackHole(members.get(leader).port())) {
      CompletableFuture<TxnResult> late = forwarding.propose(session.create("/late"));
      ExecutionException timedOut = assertThrows(ExecutionException.class,
          () -> late.get(WAIT_SECONDS, TimeUnit.SECONDS));
      assertEquals(ErrorCode.OPERATION_TIMEOUT,
          assertInstanceOf(ReplicationException.class, timedOut.getCause()).code(), timedOut.getCause().toString());

      // a majority again; the forwarding member is elected (the other waits longer before it runs), so that
      // its forwarding client is not replaced on a new leader's notice and would still send what it holds
      startAll(List.of(other), List.of(new RecordingState()), Duration.ofSeconds(20));
      await().atMost(WAIT_SECONDS, TimeUnit.SECONDS).until(forwarding::isLeader);
      await().atMost(WAIT_SECONDS, TimeUnit.SECONDS).ignoreExceptions()
          .until(() -> forwarding.propose(session.create("/after")).get(5, TimeUnit.SECONDS) != null);
      // what the forwarding client still held would go in now: it retries every 100 ms, between hangs
      Thread.sleep(2 * RATIS_CLIENT_REQUEST_TIMEOUT.toMillis());
      forwarding.propose(session.create("/last")).get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    List<String> created = states.get(follower).applied().stream()
        .flatMap(applied -> applied.entry().getTxnsList().stream())
        .filter(Txn::hasRequest)
        .map(txn -> txn.getRequest().getCreate().getPath())
        .distinct()
        .toList();
    assertEquals(List.of("/after", "/last"), created, "the abandoned create reached the log");
  }

  /** Starts members {@code which} (again, on their data) with these states and election timeouts. */
  private void startAll(List<Integer> which, List<RecordingState> states, Duration electionTimeoutMin)
      throws Exception {
    List<RaftReplicator> starting = new ArrayList<>();
    for (int k = 0; k < which.size(); k++) {
      int i = which.get(k);
      RaftMember self = members.get(i);
      RaftReplicator replicator = RaftReplicator.create(ReplicationConfig.builder()
          .dataDir(Files.createDirectories(dataDirs.resolve(self.id())))
          .members(self.id(), members)
          .electionTimeout(electionTimeoutMin, electionTimeoutMin.multipliedBy(2))
          .operationTimeout(OPERATION_TIMEOUT)
          .build(), states.get(k));
      if (running.size() <= i) {
        running.add(replicator);
      } else {
        running.set(i, replicator);
      }
      starting.add(replicator);
    }
    LocalMembers.startTogether(starting);
  }

  /** A socket on {@code port} that takes connections and never reads (once the closed member let go of it). */
  private static ServerSocket blackHole(int port) {
    ServerSocket[] bound = new ServerSocket[1];
    await().atMost(WAIT_SECONDS, TimeUnit.SECONDS).ignoreExceptions().until(() -> {
      bound[0] = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
      return true;
    });
    return bound[0];
  }
}
