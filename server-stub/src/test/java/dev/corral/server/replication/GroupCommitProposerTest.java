package dev.corral.server.replication;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.proto.internal.LogEntry;
import dev.corral.proto.internal.Txn;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.Response;
import dev.corral.server.tree.TxnResult;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The group-commit proposer alone, over a fake log. */
class GroupCommitProposerTest {
  private static final long WAIT_SECONDS = 30;
  /**
   * An operation timeout longer than every wait here: a test that expects OPERATION_TIMEOUT from something
   * else (a lost route, a lost entry) cannot pass on the proposal's own timeout.
   */
  private static final Duration NO_TIMEOUT_WITHIN_THE_TEST = Duration.ofMinutes(5);

  /**
   * An entry handed to the fake log by thread {@code by}, and the future that says how the log took it;
   * {@code ownLogOnly} when it holds txns forwarded from another member.
   */
  private record Submitted(LogEntry entry, CompletableFuture<Void> reply, Thread by, boolean ownLogOnly) {
    /** The session ids of the entry's txns, in entry order. */
    List<Long> sessions() {
      return entry.getTxnsList().stream().map(Txn::getSessionId).toList();
    }
  }

  /** A route to a leader that can lose what it took, as a forwarding link does. */
  private static final class TestRoute implements GroupCommitProposer.Route {
    volatile ReplicationException lost;

    @Override
    public ReplicationException lost() {
      return lost;
    }
  }

  /** When set, submissions are handed over this route, answered at once, as a follower forwards. */
  private volatile TestRoute forwardingRoute;

  private final BlockingQueue<Submitted> log = new LinkedBlockingQueue<>();
  private final List<String> events = Collections.synchronizedList(new ArrayList<>());
  private GroupCommitProposer proposer;

  @AfterEach
  void close() {
    if (proposer != null) {
      proposer.close();
    }
  }

  private volatile boolean slowLog;
  private final java.util.concurrent.atomic.AtomicBoolean leaderKnown = new java.util.concurrent.atomic.AtomicBoolean(true);

  private GroupCommitProposer start(Function<ReplicationConfig.Builder, ReplicationConfig.Builder> settings) {
    ReplicationConfig config = settings.apply(ReplicationConfig.builder()
        .dataDir(Path.of("unused"))
        .singleMember(new RaftMember("s1", "127.0.0.1", 0))).build();
    proposer = new GroupCommitProposer(config, new GroupCommitProposer.EntrySubmitter() {
      @Override
      public GroupCommitProposer.Submission submit(LogEntry entry) {
        return take(entry, false);
      }

      @Override
      public GroupCommitProposer.Submission submitToOwnLog(LogEntry entry) {
        return take(entry, true);
      }

      private GroupCommitProposer.Submission take(LogEntry entry, boolean ownLogOnly) {
        CompletableFuture<Void> reply = new CompletableFuture<>();
        if (slowLog) { // widens the window in which two senders could overtake each other
          LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(1)));
        }
        log.add(new Submitted(entry, reply, Thread.currentThread(), ownLogOnly));
        TestRoute route = forwardingRoute;
        if (route != null) {
          return new GroupCommitProposer.Submission(CompletableFuture.completedFuture(null), () -> { }, route);
        }
        return new GroupCommitProposer.Submission(reply, () -> {
          events.add("abandoned");
          reply.completeExceptionally(new IOException("given up on"));
        });
      }

      @Override
      public boolean canSubmit() {
        return leaderKnown.get();
      }
    });
    proposer.start();
    return proposer;
  }

  private Submitted nextSubmitted() throws InterruptedException {
    Submitted s = log.poll(WAIT_SECONDS, TimeUnit.SECONDS);
    assertNotEquals(null, s, "nothing was submitted");
    return s;
  }

  /** Applies every txn of the entry as the state would, then answers the submission. */
  private void applyAndReply(Submitted s) {
    for (Txn txn : s.entry().getTxnsList()) {
      proposer.applied(txn, new TxnResult(Response.newBuilder().setXid(txn.getProposalId()).build(), List.of()));
    }
    s.reply().complete(null);
  }

  /** A txn as another member's proposer stamped it. */
  private static Txn forwarded(long origin, long proposalId) {
    return Txn.newBuilder().setOrigin(origin).setProposalId(proposalId).setSessionId(proposalId).build();
  }

  /** Proposes {@code txn} as forwarded here, recording any refusal's code in {@code refusals}. */
  private void proposeForwarded(Txn txn, List<String> refusals) {
    proposer.proposeForwarded(txn, why -> refusals.add(txn.getProposalId() + ":" + why.code()));
  }

  @Test
  void forwardedTxnsShareTheNextEntryWithThisMembersOwnInArrivalOrder() throws Exception {
    start(b -> b.maxEntriesInFlight(1));
    List<String> refusals = Collections.synchronizedList(new ArrayList<>());
    CompletableFuture<TxnResult> first = proposer.propose(Txn.newBuilder().setSessionId(1));
    Submitted inFlight = nextSubmitted();

    proposeForwarded(forwarded(77, 5), refusals);
    CompletableFuture<TxnResult> own = proposer.propose(Txn.newBuilder().setSessionId(2));
    proposeForwarded(forwarded(88, 9), refusals);
    applyAndReply(inFlight);

    Submitted shared = nextSubmitted();
    assertEquals(List.of(77L, proposer.origin(), 88L),
        shared.entry().getTxnsList().stream().map(Txn::getOrigin).toList());
    assertEquals(List.of(5L, 2L, 9L), shared.sessions());
    assertTrue(shared.ownLogOnly(), "an entry holding forwarded txns must never be forwarded on");
    assertFalse(inFlight.ownLogOnly());
    applyAndReply(shared);
    first.get(WAIT_SECONDS, TimeUnit.SECONDS);
    own.get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertEquals(List.of(), refusals, "applied forwarded txns are not refused");
  }

  @Test
  void aForwardedTxnThatNeverEnteredTheLogIsRefusedWithNotReady() throws Exception {
    start(b -> b);
    List<String> refusals = Collections.synchronizedList(new ArrayList<>());
    proposeForwarded(forwarded(77, 5), refusals);

    nextSubmitted().reply().completeExceptionally(GroupCommitProposer.notReady("no longer leads", null));

    awaitSize(refusals, 1);
    assertEquals(List.of("5:NOT_READY"), refusals);
  }

  @Test
  void aForwardedTxnLostAfterItWasSentIsRefusedAsOutcomeUnknown() throws Exception {
    start(b -> b.operationTimeout(NO_TIMEOUT_WITHIN_THE_TEST));
    List<String> refusals = Collections.synchronizedList(new ArrayList<>());
    proposeForwarded(forwarded(77, 5), refusals);

    nextSubmitted().reply().completeExceptionally(new IOException("leader stepped down"));

    awaitSize(refusals, 1);
    assertEquals(List.of("5:OPERATION_TIMEOUT"), refusals);
  }

  @Test
  void aForwardedTxnNotAppliedInTimeIsRefusedAsOutcomeUnknown() throws Exception {
    start(b -> b.operationTimeout(Duration.ofMillis(100)));
    List<String> refusals = Collections.synchronizedList(new ArrayList<>());
    proposeForwarded(forwarded(77, 5), refusals);
    nextSubmitted(); // never answered

    awaitSize(refusals, 1);
    assertEquals(List.of("5:OPERATION_TIMEOUT"), refusals);
  }

  @Test
  void closeRefusesForwardedTxnsThatWentOutAsOutcomeUnknownAndTheRestAsNotReady() throws Exception {
    start(b -> b.maxEntriesInFlight(1));
    List<String> refusals = Collections.synchronizedList(new ArrayList<>());
    proposeForwarded(forwarded(77, 5), refusals);
    nextSubmitted(); // in flight, never answered
    proposeForwarded(forwarded(77, 6), refusals);

    proposer.close();
    proposeForwarded(forwarded(77, 7), refusals);

    awaitSize(refusals, 3);
    assertEquals(Set.of("5:OPERATION_TIMEOUT", "6:NOT_READY", "7:NOT_READY"), Set.copyOf(refusals));
  }

  @Test
  void aLeadersRefusalFailsTheForwardedProposalWithItsCode() throws Exception {
    forwardingRoute = new TestRoute();
    start(b -> b);
    CompletableFuture<TxnResult> refused = proposer.propose(Txn.newBuilder());
    CompletableFuture<TxnResult> applied = proposer.propose(Txn.newBuilder());
    List<Txn> sent = new ArrayList<>();
    while (sent.size() < 2) {
      sent.addAll(nextSubmitted().entry().getTxnsList());
    }

    proposer.refused(sent.get(0).getProposalId(), GroupCommitProposer.notReady("member 2 does not lead", null));
    proposer.applied(sent.get(1), new TxnResult(Response.getDefaultInstance(), List.of()));

    assertEquals(ErrorCode.NOT_READY, failureCode(refused));
    applied.get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void proposalsSentOverALostRouteFailAsOutcomeUnknownAndOnlyThose() throws Exception {
    TestRoute lostRoute = new TestRoute();
    forwardingRoute = lostRoute;
    start(b -> b.operationTimeout(NO_TIMEOUT_WITHIN_THE_TEST));
    CompletableFuture<TxnResult> onLost = proposer.propose(Txn.newBuilder());
    nextSubmitted();
    forwardingRoute = new TestRoute();
    CompletableFuture<TxnResult> onOther = proposer.propose(Txn.newBuilder());
    Submitted other = nextSubmitted();

    lostRoute.lost = new ReplicationException(ErrorCode.OPERATION_TIMEOUT, "the stream broke", null);
    proposer.routeLost(lostRoute);

    assertEquals(ErrorCode.OPERATION_TIMEOUT, failureCode(onLost));
    assertFalse(onOther.isDone());
    proposer.applied(other.entry().getTxns(0), new TxnResult(Response.getDefaultInstance(), List.of()));
    onOther.get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void aRouteLostBeforeItsHandOverWasRecordedStillFailsWhatWentOverIt() throws Exception {
    TestRoute lostRoute = new TestRoute();
    lostRoute.lost = new ReplicationException(ErrorCode.OPERATION_TIMEOUT, "the stream broke", null);
    forwardingRoute = lostRoute; // routeLost ran before the proposer recorded the route: it is never called again
    start(b -> b.operationTimeout(NO_TIMEOUT_WITHIN_THE_TEST));

    CompletableFuture<TxnResult> future = proposer.propose(Txn.newBuilder());

    assertEquals(ErrorCode.OPERATION_TIMEOUT, failureCode(future));
  }

  private static void awaitSize(List<String> list, int size) {
    await().atMost(WAIT_SECONDS, TimeUnit.SECONDS).until(() -> list.size() >= size);
  }

  @Test
  void txnsCarryThisProposersOriginAndIncreasingProposalIds() throws Exception {
    start(b -> b.maxEntriesInFlight(1));

    List<CompletableFuture<TxnResult>> futures = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      futures.add(proposer.propose(Txn.newBuilder().setSessionId(7)));
    }
    List<Txn> txns = new ArrayList<>();
    while (txns.size() < 3) {
      Submitted s = nextSubmitted();
      txns.addAll(s.entry().getTxnsList());
      applyAndReply(s);
    }

    assertEquals(List.of(1L, 2L, 3L), txns.stream().map(Txn::getProposalId).toList());
    assertTrue(txns.stream().allMatch(t -> t.getOrigin() == proposer.origin()));
    for (int i = 0; i < 3; i++) {
      assertEquals(i + 1, futures.get(i).get(WAIT_SECONDS, TimeUnit.SECONDS).response().getXid());
    }
  }

  @Test
  void txnsOfAnotherOriginCompleteNothing() throws Exception {
    start(b -> b);
    CompletableFuture<TxnResult> mine = proposer.propose(Txn.newBuilder());
    Submitted s = nextSubmitted();

    Txn foreign = s.entry().getTxns(0).toBuilder().setOrigin(proposer.origin() + 1).build();
    proposer.applied(foreign, new TxnResult(Response.getDefaultInstance(), List.of()));

    assertFalse(mine.isDone());
    applyAndReply(s);
    mine.get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void aProposalNotAppliedInTimeFailsWithOperationTimeout() throws Exception {
    start(b -> b.operationTimeout(Duration.ofMillis(50)));

    CompletableFuture<TxnResult> future = proposer.propose(Txn.newBuilder());

    assertEquals(ErrorCode.OPERATION_TIMEOUT, failureCode(future));
  }

  @Test
  void aSentEntryIsAbandonedBeforeTheCallerHearsItTimedOut() throws Exception {
    start(b -> b.operationTimeout(Duration.ofMillis(200)));

    CompletableFuture<TxnResult> future = proposer.propose(Txn.newBuilder());
    future.whenComplete((result, failure) -> events.add("caller told"));
    nextSubmitted(); // never answered

    ReplicationException failure = failure(future);
    assertEquals(ErrorCode.OPERATION_TIMEOUT, failure.code());
    assertTrue(failure.getMessage().contains("not applied within"), failure.getMessage());
    assertEquals(List.of("abandoned", "caller told"), events,
        "a caller told first could move on while the entry is still being sent");
  }

  @Test
  void anEntryAnsweredInTimeIsNeverAbandoned() throws Exception {
    start(b -> b.operationTimeout(Duration.ofMillis(200)));

    CompletableFuture<TxnResult> future = proposer.propose(Txn.newBuilder());
    applyAndReply(nextSubmitted());

    future.get(WAIT_SECONDS, TimeUnit.SECONDS);
    Thread.sleep(400); // past the timeout
    assertEquals(List.of(), events);
  }

  @Test
  void withNoLeaderKnownTxnsAreHeldBackAndFailWithNotReadyWithoutEverBeingSent() throws Exception {
    leaderKnown.set(false);
    start(b -> b.operationTimeout(Duration.ofMillis(100)));

    CompletableFuture<TxnResult> future = proposer.propose(Txn.newBuilder());

    assertEquals(ErrorCode.NOT_READY, failureCode(future));
    leaderKnown.set(true);
    CompletableFuture<TxnResult> later = proposer.propose(Txn.newBuilder().setSessionId(9));
    Submitted next = nextSubmitted();
    assertEquals(List.of(9L), next.sessions(),
        "the timed-out txn never reaches the log");
    applyAndReply(next);
    later.get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void aTxnHeldBackGoesOutOnceALeaderIsKnown() throws Exception {
    leaderKnown.set(false);
    start(b -> b);

    CompletableFuture<TxnResult> future = proposer.propose(Txn.newBuilder());
    Thread.sleep(100);
    assertTrue(log.isEmpty());
    leaderKnown.set(true);

    applyAndReply(nextSubmitted());
    future.get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void anEntryRefusedBeforeItWasSentFailsItsTxnsWithNotReady() throws Exception {
    start(b -> b);
    CompletableFuture<TxnResult> future = proposer.propose(Txn.newBuilder());

    nextSubmitted().reply().completeExceptionally(GroupCommitProposer.notReady("no leader known", null));

    assertEquals(ErrorCode.NOT_READY, failureCode(future));
  }

  @Test
  void anEntryLostAfterItWasSentFailsItsTxnsAsOutcomeUnknown() throws Exception {
    start(b -> b);
    CompletableFuture<TxnResult> future = proposer.propose(Txn.newBuilder());

    nextSubmitted().reply().completeExceptionally(new IOException("leader stepped down"));

    assertEquals(ErrorCode.OPERATION_TIMEOUT, failureCode(future));
  }

  @Test
  void closeFailsQueuedAndSubmittedProposalsWithNotReady() throws Exception {
    start(b -> b.maxEntriesInFlight(1));
    CompletableFuture<TxnResult> submitted = proposer.propose(Txn.newBuilder());
    nextSubmitted();
    CompletableFuture<TxnResult> queued = proposer.propose(Txn.newBuilder());

    proposer.close();

    assertEquals(ErrorCode.NOT_READY, failureCode(submitted));
    assertEquals(ErrorCode.NOT_READY, failureCode(queued));
    assertEquals(ErrorCode.NOT_READY, failureCode(proposer.propose(Txn.newBuilder())));
  }

  @Test
  void anEntryHoldsAtMostTheConfiguredNumberOfTxns() throws Exception {
    start(b -> b.maxEntriesInFlight(1).maxTxnsPerEntry(3));
    for (int i = 0; i < 7; i++) {
      proposer.propose(Txn.newBuilder());
    }

    Submitted first = nextSubmitted(); // whatever was queued when the drainer woke
    applyAndReply(first);
    int total = first.entry().getTxnsCount();
    while (total < 7) {
      Submitted next = nextSubmitted();
      assertTrue(next.entry().getTxnsCount() <= 3);
      total += next.entry().getTxnsCount();
      applyAndReply(next);
    }
    assertTrue(first.entry().getTxnsCount() <= 3);
  }

  @Test
  void aCallerFindingNothingInFlightSendsItsTxnItself() throws Exception {
    start(b -> b);

    proposer.propose(Txn.newBuilder());

    Submitted s = log.poll(); // already there: no drainer had to wake for it
    assertNotEquals(null, s, "the txn was not sent by the caller");
    assertEquals(Thread.currentThread(), s.by());
  }

  @Test
  void txnsProposedWhileTheCallersMayNotSendGoOutThroughTheDrainerInOrder() throws Exception {
    // one entry in flight: the first txn takes it (sent by the caller or the drainer, whichever took the permit),
    // so the next two cannot be sent by their callers; with two, a caller could take the permit the drainer
    // had not yet taken at its start
    start(b -> b.maxEntriesInFlight(1));
    proposer.propose(Txn.newBuilder().setSessionId(1));
    Submitted first = nextSubmitted();

    proposer.propose(Txn.newBuilder().setSessionId(2));
    proposer.propose(Txn.newBuilder().setSessionId(3));
    applyAndReply(first);

    List<Long> sessions = new ArrayList<>();
    while (sessions.size() < 2) {
      Submitted next = nextSubmitted();
      assertNotEquals(Thread.currentThread(), next.by());
      next.entry().getTxnsList().forEach(t -> sessions.add(t.getSessionId()));
      applyAndReply(next);
    }
    assertEquals(List.of(2L, 3L), sessions);
  }

  /**
   * Proposes a txn of session 1, which comes back promptly as a rule (its txns
   * before it were each proposed right after the one before was answered), and
   * returns its entry, in flight, once txns of sessions 2 and 3 are queued
   * behind it.
   */
  private Submitted oneInFlightAndTwoQueued() throws InterruptedException {
    answerUntilPromptAsARule(1);
    proposer.propose(Txn.newBuilder().setSessionId(1));
    Submitted first = nextSubmitted();
    proposer.propose(Txn.newBuilder().setSessionId(2));
    proposer.propose(Txn.newBuilder().setSessionId(3));
    return first;
  }

  /**
   * Proposes txns of {@code session}, each once the one before was answered,
   * until its next one comes back promptly as a rule. How many that takes is
   * the rule's own arithmetic ({@link PromptnessTest} pins it): the first txn
   * has no answer before it, and the next one is the last prompt return needed.
   */
  private void answerUntilPromptAsARule(long session) throws InterruptedException {
    answerInTurn(session, promptReturnsUntilExpectedBack());
  }

  private static int promptReturnsUntilExpectedBack() {
    GroupCommitProposer.Promptness promptness = GroupCommitProposer.Promptness.firstAnswered(0);
    for (int returns = 1; returns <= 1_000; returns++) {
      promptness = promptness.queued(0, 1);
      if (promptness.expectedBack()) {
        return returns;
      }
    }
    throw new AssertionError("a session back promptly 1,000 times in a row is still not expected back");
  }

  /** Proposes {@code times} txns of {@code session}, each once the one before was answered. */
  private void answerInTurn(long session, int times) throws InterruptedException {
    for (int i = 0; i < times; i++) {
      proposer.propose(Txn.newBuilder().setSessionId(session));
      applyAndReply(nextSubmitted());
    }
  }

  /** Whether the drainer is waiting, until a deadline, for more txns before it sends the next entry. */
  private static boolean drainerHoldsBack() {
    return Thread.getAllStackTraces().entrySet().stream()
        .anyMatch(t -> t.getKey().getName().equals("corral-group-commit")
            && t.getKey().getState() == Thread.State.TIMED_WAITING
            && Arrays.stream(t.getValue()).anyMatch(frame -> frame.getMethodName().equals("nextBatch")));
  }

  @Test
  void theNextEntryWaitsForTheTxnsOfTheAnsweredEntryAndThoseQueuedBehindIt() throws Exception {
    start(b -> b.maxEntriesInFlight(1).batchWait(Duration.ofMinutes(1)));
    Submitted first = oneInFlightAndTwoQueued();

    applyAndReply(first); // 1 answered + 2 queued: 3 expected in the next entry
    await().atMost(WAIT_SECONDS, TimeUnit.SECONDS).until(GroupCommitProposerTest::drainerHoldsBack);
    assertEquals(null, log.poll(), "the next entry did not wait for the third txn");
    proposer.propose(Txn.newBuilder().setSessionId(4));

    Submitted next = nextSubmitted();
    assertEquals(List.of(2L, 3L, 4L), next.sessions());
  }

  @Test
  void aForwardedTxnThatCompletesTheExpectedOnesSendsTheNextEntryWithoutWaitingOutTheBatchWait() throws Exception {
    start(b -> b.maxEntriesInFlight(1).batchWait(Duration.ofMinutes(1)));
    Submitted first = oneInFlightAndTwoQueued();

    applyAndReply(first); // 3 expected
    await().atMost(WAIT_SECONDS, TimeUnit.SECONDS).until(GroupCommitProposerTest::drainerHoldsBack);
    List<String> refusals = Collections.synchronizedList(new ArrayList<>());
    proposeForwarded(forwarded(7, 9), refusals);

    assertEquals(List.of(2L, 3L, 9L), nextSubmitted().sessions()); // held for the minute, it would not be here
    assertEquals(List.of(), refusals);
  }

  @Test
  void theNextEntryGoesWithFewerTxnsThanExpectedOnceTheBatchWaitIsOver() throws Exception {
    start(b -> b.maxEntriesInFlight(1).batchWait(Duration.ofMillis(50)));
    Submitted first = oneInFlightAndTwoQueued();

    applyAndReply(first); // 3 expected; no more come

    Submitted next = nextSubmitted();
    assertEquals(List.of(2L, 3L), next.sessions());
  }

  @Test
  void anEntryFullOfTxnsIsNeverHeldBackByTheBatchWait() throws Exception {
    start(b -> b.maxEntriesInFlight(1).maxTxnsPerEntry(2).batchWait(Duration.ofMinutes(1)));
    Submitted first = oneInFlightAndTwoQueued();

    applyAndReply(first); // 3 expected, but 2 fill an entry

    assertEquals(List.of(2L, 3L), nextSubmitted().sessions());
  }

  @Test
  void anEntryFullOfBytesIsNeverHeldBackByTheBatchWait() throws Exception {
    start(b -> b.maxEntriesInFlight(1).maxEntryBytes(1).batchWait(Duration.ofMinutes(1)));
    Submitted first = oneInFlightAndTwoQueued();

    applyAndReply(first); // 3 expected, but each txn fills an entry

    assertEquals(List.of(2L), nextSubmitted().sessions());
  }

  @Test
  void aSessionHeardFromForTheFirstTimeIsNotWaitedFor() throws Exception {
    start(b -> b.maxEntriesInFlight(1).batchWait(Duration.ofMinutes(1)));
    proposer.propose(Txn.newBuilder().setSessionId(1));
    Submitted first = nextSubmitted();
    proposer.propose(Txn.newBuilder().setSessionId(2));
    proposer.propose(Txn.newBuilder().setSessionId(3));

    applyAndReply(first); // session 1 has no earlier answer: only the 2 queued are expected

    assertEquals(List.of(2L, 3L), nextSubmitted().sessions()); // held for the minute, it would not be here
  }

  @Test
  void ofAnAnsweredEntryOnlyTheSessionsThatCameBackPromptlyAreWaitedFor() throws Exception {
    start(b -> b.maxEntriesInFlight(1).batchWait(Duration.ofMinutes(1)));
    answerUntilPromptAsARule(1);
    proposer.propose(Txn.newBuilder().setSessionId(9));
    Submitted first = nextSubmitted();
    proposer.propose(Txn.newBuilder().setSessionId(1)); // back promptly
    proposer.propose(Txn.newBuilder().setSessionId(5)); // heard from for the first time
    applyAndReply(first);
    Submitted mixed = nextSubmitted();
    assertEquals(List.of(1L, 5L), mixed.sessions());
    proposer.propose(Txn.newBuilder().setSessionId(2));
    proposer.propose(Txn.newBuilder().setSessionId(3));

    applyAndReply(mixed); // 2 queued + session 1 expected; not session 5
    await().atMost(WAIT_SECONDS, TimeUnit.SECONDS).until(GroupCommitProposerTest::drainerHoldsBack);
    assertEquals(null, log.poll(), "the next entry did not wait for session 1");
    proposer.propose(Txn.newBuilder().setSessionId(1));

    assertEquals(List.of(2L, 3L, 1L), nextSubmitted().sessions()); // held for session 5 too, it would not be here
  }

  @Test
  void aSessionThatCameBackPromptlyOnlyInABurstIsNotWaitedFor() throws Exception {
    start(b -> b.maxEntriesInFlight(1).batchWait(Duration.ofMinutes(1)));
    answerInTurn(1, 2); // as a lock holder's write and release
    proposer.propose(Txn.newBuilder().setSessionId(1)); // and its next request, after which it waits its turn
    Submitted last = nextSubmitted();
    proposer.propose(Txn.newBuilder().setSessionId(2)); // as the next holder's first write

    applyAndReply(last); // back promptly twice: only the queued txn is expected

    assertEquals(List.of(2L), nextSubmitted().sessions()); // held for the minute, it would not be here
  }

  @Test
  void aLoneCallerIsNeverHeldBackByTheBatchWait() throws Exception {
    start(b -> b.maxEntriesInFlight(1).batchWait(Duration.ofMinutes(1)));
    for (int i = 1; i <= 5; i++) {
      CompletableFuture<TxnResult> result = proposer.propose(Txn.newBuilder().setSessionId(i));
      applyAndReply(nextSubmitted()); // held for the minute, it would not be here within the wait
      result.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
  }

  @Test
  void txnsReachTheLogInTheOrderEachCallerProposedThem() throws Exception {
    start(b -> b);
    slowLog = true;
    int callers = 6;
    int each = 300;
    List<Txn> logged = Collections.synchronizedList(new ArrayList<>()); // in the order entries were handed over
    Thread applier = new Thread(() -> {
      try {
        while (!Thread.currentThread().isInterrupted()) {
          Submitted s = log.poll(100, TimeUnit.MILLISECONDS);
          if (s != null) {
            logged.addAll(s.entry().getTxnsList());
            applyAndReply(s);
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    applier.start();
    try {
      List<Thread> threads = new ArrayList<>();
      List<CompletableFuture<TxnResult>> futures = Collections.synchronizedList(new ArrayList<>());
      for (int c = 1; c <= callers; c++) {
        long session = c;
        threads.add(new Thread(() -> {
          for (int i = 0; i < each; i++) {
            futures.add(proposer.propose(Txn.newBuilder().setSessionId(session).setAttachment(i)));
          }
        }));
      }
      threads.forEach(Thread::start);
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
      }
      for (CompletableFuture<TxnResult> f : futures) {
        f.get(WAIT_SECONDS, TimeUnit.SECONDS);
      }
    } finally {
      applier.interrupt();
      applier.join();
    }

    assertEquals(callers * each, logged.size());
    for (int c = 1; c <= callers; c++) {
      long session = c;
      List<Long> order = logged.stream().filter(t -> t.getSessionId() == session).map(Txn::getAttachment).toList();
      int first = IntStream.range(0, each).filter(i -> order.get(i) != i).findFirst().orElse(-1);
      assertEquals(-1, first, "caller " + c + "'s txns reached the log out of order: at position " + first
          + " came its txn " + (first < 0 ? "" : order.get(first)));
    }
  }

  private static ErrorCode failureCode(CompletableFuture<TxnResult> future) {
    return failure(future).code();
  }

  private static ReplicationException failure(CompletableFuture<TxnResult> future) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(WAIT_SECONDS, TimeUnit.SECONDS));
    return assertInstanceOf(ReplicationException.class, e.getCause());
  }
}
