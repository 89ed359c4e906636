package dev.corral.server.replication;

import static dev.corral.server.replication.DaemonThreads.daemon;

import dev.corral.proto.internal.LogEntry;
import dev.corral.proto.internal.Txn;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.server.tree.TxnResult;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit: txns proposed by many callers are queued in call order and
 * packed, whatever is queued at once, into one log entry, keeping at most a few
 * entries in flight, so that under load many txns share one Raft round and one
 * fsync. A caller that finds nothing being sent and room in flight sends itself;
 * otherwise one drainer thread sends what queued up meanwhile. Each caller's
 * future completes on the apply thread when the entry holding its txn has been
 * applied here ({@link #applied}, called by the state). A proposal not applied
 * within the operation timeout fails; one sweep finds those past their deadline.
 *
 * <p>When an entry that went into a log is answered, the txns that had queued
 * behind it when it was applied are expected in the next one, and so is one
 * more for each of its txns whose session comes back promptly as a rule. A
 * session came back promptly when its txn was queued at most
 * {@link ReplicationConfig#batchWait()} after its txn before it was answered
 * here; it does so as a rule when it did so lately, nearly every time: a
 * moving average of 1 for each time it did and 0 for each time it did not,
 * the latest weighing an eighth, reaches {@value Promptness#EXPECTED_BACK}. A
 * session heard from for the first time gets there the 13th time in a row; a
 * writer in a loop stays there though it misses now and then (a follower's
 * session, whose next txn reaches the leader a hand-over later, does); one
 * that comes back promptly only twice between pauses stays near 2/3. Up to
 * that wait, the next entry waits until that many are queued (see there for
 * why). A session heard from less often (or for the first time) is not
 * waited for: held for it, the writes of the others waited out the whole
 * batch wait on every entry it shared. Nor is one that writes in short
 * bursts: a lock holder's release and its next request come back promptly,
 * but then it waits for its turn, and held for it, the next holder's first
 * write waited out the batch wait on every hand-over. A follower's hand-over
 * is answered before any of its txns is applied: nothing is expected, and
 * nothing waits.
 *
 * <p>In an ensemble, a follower's proposer hands its batches to the leader over
 * a {@link Route} that may still lose them after the hand-over; the leader's
 * proposer queues what arrives ({@link #proposeForwarded}) behind its own txns,
 * so that the txns of every member share the leader's entries.
 */
final class GroupCommitProposer implements ReplicatedState.AppliedTxnListener, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GroupCommitProposer.class);

  /** Puts entries into the log. */
  interface EntrySubmitter {
    Submission submit(LogEntry entry);

    /**
     * Puts an entry holding txns that other members forwarded here into this
     * member's own log, never forwarding it on: sent on to a new leader, they
     * could reach its log after txns their member sent it directly since. Where
     * this member does not lead, the answer fails with NOT_READY.
     */
    default Submission submitToOwnLog(LogEntry entry) {
      return submit(entry);
    }

    /** False while an entry cannot be sent anywhere (no leader known): the drainer holds entries back. */
    default boolean canSubmit() {
      return true;
    }
  }

  /**
   * An entry handed to the log. {@code answer} fails (with any exception) if
   * Ratis did not take or commit it. {@code abandon} stops every further
   * attempt to send it and fails the answer: once it returns, nothing more of
   * the entry goes out (an attempt already on the wire may still arrive).
   * Safe to run more than once. {@code route} is null, or the way to the leader
   * the txns went, which may lose them after {@code answer} completed: its
   * loss is reported through {@link #routeLost}.
   */
  record Submission(CompletableFuture<?> answer, Runnable abandon, Route route) {
    Submission(CompletableFuture<?> answer, Runnable abandon) {
      this(answer, abandon, null);
    }
  }

  /** A way to the leader that can lose what was handed to it (a forwarding stream). */
  interface Route {
    /** Why the txns sent this way may be lost, once they may (outcome unknown); null until then. */
    ReplicationException lost();
  }

  private static final long NO_LEADER_POLL_MS = 10;

  /**
   * A session's record for the batch wait (see the class comment): when its
   * last txn was answered here, and the moving average of how often its txns
   * came back promptly.
   */
  record Promptness(long answeredAt, double score) {
    /** The average at which a session is expected back. */
    static final double EXPECTED_BACK = 0.8;
    /** How much the latest time a session came back (or did not) weighs in the average. */
    private static final double LATEST_WEIGHT = 1.0 / 8;

    /** A session's first txn answered here, at {@code now}: nothing is known of it yet. */
    static Promptness firstAnswered(long now) {
      return new Promptness(now, 0);
    }

    Promptness answered(long now) {
      return new Promptness(now, score);
    }

    /** With a txn of the session queued at {@code now}: the average moves towards 1 if it came back promptly, else 0. */
    Promptness queued(long now, long batchWaitNanos) {
      double cameBack = now - answeredAt <= batchWaitNanos ? 1 : 0;
      return new Promptness(answeredAt, score + (cameBack - score) * LATEST_WEIGHT);
    }

    boolean expectedBack() {
      return score >= EXPECTED_BACK;
    }
  }

  /**
   * {@code sent} is set once: to the entry the txn goes out in (a failure after
   * that leaves the outcome unknown), or to {@link #NEVER_SENT} when it timed
   * out first. {@code forwarded} is true for a txn another member forwarded here;
   * {@code prompt} when its session comes back promptly as a rule (see the class
   * comment), so that it is expected back once answered.
   */
  private record Proposal(Txn txn, CompletableFuture<TxnResult> future, long deadlineNanos, boolean forwarded,
      boolean prompt, AtomicReference<SentEntry> sent) {
    Proposal(Txn txn, CompletableFuture<TxnResult> future, long deadlineNanos, boolean forwarded, boolean prompt) {
      this(txn, future, deadlineNanos, forwarded, prompt, new AtomicReference<>());
    }

    ProposalKey key() {
      return new ProposalKey(txn.getOrigin(), txn.getProposalId());
    }
  }

  /** A proposal's identity across members: its proposer's origin and its id there. */
  private record ProposalKey(long origin, long id) {}

  private static final SentEntry NEVER_SENT = new SentEntry();

  private final long origin = newOrigin();
  private final EntrySubmitter submitter;
  private final int maxTxnsPerEntry;
  private final int maxEntryBytes;
  private final Duration timeout;
  private final long batchWaitNanos;
  private final Semaphore inFlight;
  private final Map<ProposalKey, Proposal> waiting = new ConcurrentHashMap<>();
  /** How promptly each session answered here lately came back; forgotten once none of its txns can be in flight. */
  private final Map<Long, Promptness> promptness = new ConcurrentHashMap<>();
  private final ScheduledExecutorService sweeper;
  private final Thread drainer;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition queued = lock.newCondition();
  private final ArrayDeque<Proposal> queue = new ArrayDeque<>(); // guarded by lock
  private long queuedBytes; // guarded by lock: the serialized size of the queued txns
  /** How many txns the next entry waits for, until {@link #waitUntilNanos}. */
  private int expected = 1; // guarded by lock
  private long waitUntilNanos = System.nanoTime(); // guarded by lock
  private long lastProposalId; // guarded by lock
  private boolean closed; // guarded by lock
  /** Set while a thread packs and submits an entry: one at a time, so that queue order is log order. */
  private boolean sending; // guarded by lock


  GroupCommitProposer(ReplicationConfig config, EntrySubmitter submitter) {
    this.submitter = submitter;
    this.maxTxnsPerEntry = config.maxTxnsPerEntry();
    this.maxEntryBytes = config.maxEntryBytes();
    this.timeout = config.operationTimeout();
    this.batchWaitNanos = config.batchWait().toNanos();
    this.inFlight = new Semaphore(config.maxEntriesInFlight());
    this.sweeper = Executors.newSingleThreadScheduledExecutor(daemon("corral-proposal-timeouts"));
    this.drainer = daemon("corral-group-commit").newThread(this::drain);
  }

  void start() {
    drainer.start();
    long period = sweepPeriodNanos(timeout);
    sweeper.scheduleWithFixedDelay(this::timeOutExpired, period, period, TimeUnit.NANOSECONDS);
  }

  /**
   * How often waiting proposals are checked for their deadline: an eighth of the
   * timeout, between 1 and 100 ms. One periodic sweep rather than a timer task
   * per proposal, which woke the timer thread once per write.
   */
  private static long sweepPeriodNanos(Duration timeout) {
    long eighth = timeout.toNanos() / 8;
    return Math.max(TimeUnit.MILLISECONDS.toNanos(1), Math.min(eighth, TimeUnit.MILLISECONDS.toNanos(100)));
  }

  /** The random id of this proposer, stamped on every txn it proposes. */
  long origin() {
    return origin;
  }

  /**
   * Queues the txn. When no entry is being sent and one more may be in flight,
   * the caller sends what is queued itself, sparing a wake-up of the drainer:
   * the drainer packs only what queues up behind entries in flight.
   */
  CompletableFuture<TxnResult> propose(Txn.Builder builder) {
    CompletableFuture<TxnResult> future = new CompletableFuture<>();
    List<Proposal> sendNow = null;
    lock.lock();
    try {
      if (closed) {
        return CompletableFuture.failedFuture(notReady("the replicator is closed", null));
      }
      Txn txn = builder.setOrigin(origin).setProposalId(++lastProposalId).build();
      Proposal proposal = newProposal(txn, future, false);
      waiting.put(proposal.key(), proposal);
      enqueue(proposal);
      if (!sending && holdBackNanos() <= 0 && submitter.canSubmit() && inFlight.tryAcquire()) {
        sending = true;
        sendNow = takeBatch();
      } else {
        wakeDrainerIfDue();
      }
    } finally {
      lock.unlock();
    }
    if (sendNow != null) {
      send(sendNow);
    }
    return future;
  }

  /**
   * Queues a txn another member forwarded here (stamped with that member's
   * origin and proposal id) behind everything queued before it; the drainer
   * sends it. {@code refuse} hears, once, if it failed: NOT_READY when it never
   * entered the log, OPERATION_TIMEOUT when it may have. Never blocks, and never
   * sends on the caller's thread (a transport's event loop).
   */
  void proposeForwarded(Txn txn, Consumer<ReplicationException> refuse) {
    CompletableFuture<TxnResult> future = new CompletableFuture<>();
    future.whenComplete((result, failure) -> {
      if (failure != null) {
        refuse.accept(asReplicationException(failure));
      }
    });
    lock.lock();
    try {
      if (!closed) {
        Proposal proposal = newProposal(txn, future, true);
        waiting.put(proposal.key(), proposal);
        enqueue(proposal);
        wakeDrainerIfDue();
        return;
      }
    } finally {
      lock.unlock();
    }
    future.completeExceptionally(notReady("the replicator is closed", null));
  }

  /**
   * Completes the future of {@code txn} if this proposer proposed it or queued
   * it for another member. Called on the apply thread, by the state, right after
   * it applied the txn.
   */
  @Override
  public void applied(Txn txn, TxnResult result) {
    Proposal proposal = waiting.remove(new ProposalKey(txn.getOrigin(), txn.getProposalId()));
    if (proposal != null) {
      SentEntry sent = proposal.sent().get();
      // a follower's hand-over, answered before its txns are applied, expects nothing back: nothing to note
      if (batchWaitNanos > 0 && sent != null && sent.route() == null) {
        noteQueuedBehind(sent);
        if (txn.getSessionId() != 0) {
          long now = System.nanoTime();
          promptness.compute(txn.getSessionId(), (id, last) ->
              last == null ? Promptness.firstAnswered(now) : last.answered(now));
        }
      }
      proposal.future().complete(result);
    }
  }

  /** The leader gave up on txn {@code proposalId} of this proposer, which it forwarded there. */
  void refused(long proposalId, ReplicationException why) {
    Proposal proposal = waiting.get(new ProposalKey(origin, proposalId));
    if (proposal != null) {
      fail(proposal, why);
    }
  }

  /**
   * {@code route} lost what it held ({@link Route#lost()} says why): every
   * proposal of this proposer sent that way and not applied yet fails, outcome
   * unknown.
   */
  void routeLost(Route route) {
    for (Proposal proposal : waiting.values()) {
      SentEntry sent = proposal.sent().get();
      if (sent != null && sent.route() == route) {
        fail(proposal, route.lost());
      }
    }
  }

  /** Stops taking proposals and fails every one not yet applied with NOT_READY. */
  @Override
  public void close() {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      queued.signalAll();
    } finally {
      lock.unlock();
    }
    if (Thread.currentThread() != drainer) {
      drainer.interrupt();
      try {
        drainer.join(TimeUnit.SECONDS.toMillis(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    ReplicationException closing = notReady("the replicator is closed", null);
    ReplicationException closingSent = new ReplicationException(ErrorCode.OPERATION_TIMEOUT,
        "the replicator is closed; the txn may still be applied", null);
    // a member's own callers lose their streams as the server closes; a forwarded txn's member is told, and a
    // txn that went out may still be applied
    waiting.values().forEach(p -> fail(p,
        p.forwarded() && !p.sent().compareAndSet(null, NEVER_SENT) ? closingSent : closing));
    sweeper.shutdownNow();
    DaemonThreads.awaitTermination(sweeper, Duration.ofSeconds(10));
  }

  private void drain() {
    try {
      while (true) {
        inFlight.acquire();
        awaitSubmittable();
        List<Proposal> batch = nextBatch();
        if (batch == null) {
          return;
        }
        send(batch);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException | Error e) {
      LOG.error("group commit drainer died; failing queued proposals", e);
      close();
      throw e;
    }
  }

  /** Holds back while no leader is known; queued proposals time out with NOT_READY meanwhile. */
  private void awaitSubmittable() throws InterruptedException {
    while (!submitter.canSubmit() && !isClosed()) {
      Thread.sleep(NO_LEADER_POLL_MS);
    }
  }

  private boolean isClosed() {
    lock.lock();
    try {
      return closed;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits for queued txns while no other thread is sending, and for as many as
   * are expected (up to the batch wait), and takes as many as fit one entry,
   * marking the proposer as sending; null once closed.
   */
  private List<Proposal> nextBatch() throws InterruptedException {
    lock.lock();
    try {
      while (!closed) {
        if (queue.isEmpty() || sending) {
          queued.await();
          continue;
        }
        long holdBack = holdBackNanos();
        if (holdBack <= 0) {
          break;
        }
        queued.awaitNanos(holdBack);
      }
      if (closed) {
        return null;
      }
      sending = true;
      return takeBatch();
    } finally {
      lock.unlock();
    }
  }

  /**
   * How much longer the next entry waits for the txns expected back: 0 once
   * as many are queued as expected (or as fit one entry), or the wait is over.
   * The caller holds the lock.
   */
  private long holdBackNanos() {
    if (batchWaitNanos == 0 || queue.size() >= Math.min(expected, maxTxnsPerEntry)
        || queuedBytes >= maxEntryBytes) {
      return 0;
    }
    return Math.max(0, waitUntilNanos - System.nanoTime());
  }

  /**
   * Wakes the drainer where what it waits for may have come: a first queued
   * txn (it then waits, timed, for those expected) or as many as are expected.
   * Not while a thread sends: the sender signals as it ends. Woken for every
   * txn in between, the leader's drainer switched in about 6 times an entry of
   * 8 (W6). The caller holds the lock.
   */
  private void wakeDrainerIfDue() {
    if (!sending && !queue.isEmpty() && (queue.size() == 1 || holdBackNanos() <= 0)) {
      queued.signal();
    }
  }

  /** A proposal of {@code txn}, stamped, due within the operation timeout. The caller holds the lock. */
  private Proposal newProposal(Txn txn, CompletableFuture<TxnResult> future, boolean forwarded) {
    long now = System.nanoTime();
    return new Proposal(txn, future, now + timeout.toNanos(), forwarded, comesBackPromptly(txn.getSessionId(), now));
  }

  /**
   * Notes that a txn of {@code sessionId} is queued at {@code now}, and whether
   * the session now comes back promptly as a rule. The caller holds the lock.
   */
  private boolean comesBackPromptly(long sessionId, long now) {
    if (batchWaitNanos == 0 || sessionId == 0) {
      return false;
    }
    Promptness noted = promptness.computeIfPresent(sessionId, (id, last) -> last.queued(now, batchWaitNanos));
    return noted != null && noted.expectedBack();
  }

  /** The caller holds the lock. */
  private void enqueue(Proposal proposal) {
    queue.addLast(proposal);
    queuedBytes += proposal.txn().getSerializedSize();
  }

  /**
   * Before the first of an entry's callers hears of its txn, notes how many
   * txns queued behind the entry (not counting any its callers propose next).
   */
  private void noteQueuedBehind(SentEntry entry) {
    if (entry == NEVER_SENT || entry.queuedBehind >= 0) {
      return;
    }
    lock.lock();
    try {
      entry.queuedBehind = queue.size();
    } finally {
      lock.unlock();
    }
  }

  /**
   * An entry that went into a log was answered: those that queued behind it
   * are expected, and {@code promptlyBack} of its txns.
   */
  private void expectBack(int promptlyBack, SentEntry entry) {
    lock.lock();
    try {
      expected = entry.queuedBehind < 0 ? 1 // none applied (a hand-over): expect nothing
          : Math.max(1, promptlyBack + entry.queuedBehind);
      waitUntilNanos = System.nanoTime() + batchWaitNanos;
      wakeDrainerIfDue();
    } finally {
      lock.unlock();
    }
  }

  /** Takes as many queued txns as fit one entry; the caller holds the lock. */
  private List<Proposal> takeBatch() {
    List<Proposal> batch = new ArrayList<>();
    long bytes = 0;
    while (!queue.isEmpty() && batch.size() < maxTxnsPerEntry) {
      Proposal next = queue.peekFirst();
      int size = next.txn().getSerializedSize();
      if (!batch.isEmpty() && bytes + size > maxEntryBytes) {
        break;
      }
      queue.pollFirst();
      queuedBytes -= size;
      if (!next.future().isDone()) { // timed out while queued: it never enters the log
        batch.add(next);
        bytes += size;
      }
    }
    return batch;
  }

  /** Submits a batch taken with an in-flight permit, then lets the next sender go. */
  private void send(List<Proposal> batch) {
    try {
      if (batch.isEmpty()) {
        inFlight.release();
      } else {
        submit(batch);
      }
    } finally {
      lock.lock();
      try {
        sending = false;
        if (!queue.isEmpty()) {
          queued.signal();
        }
      } finally {
        lock.unlock();
      }
    }
  }

  private void submit(List<Proposal> batch) {
    SentEntry sentEntry = new SentEntry();
    List<Proposal> going = batch.stream().filter(p -> p.sent().compareAndSet(null, sentEntry)).toList();
    if (going.isEmpty()) { // all timed out since they were taken
      inFlight.release();
      return;
    }
    LogEntry.Builder entry = LogEntry.newBuilder(); // the leader stamps its time as it takes the entry
    boolean holdsForwarded = false;
    for (Proposal p : going) {
      entry.addTxns(p.txn());
      holdsForwarded |= p.forwarded();
    }
    Submission submission;
    try {
      submission = holdsForwarded ? submitter.submitToOwnLog(entry.build()) : submitter.submit(entry.build());
    } catch (RuntimeException e) {
      submission = new Submission(CompletableFuture.failedFuture(e), () -> { });
    }
    sentEntry.handedOver(submission);
    Route route = submission.route();
    if (route != null && route.lost() != null) { // lost before it was recorded: routeLost may have missed these
      going.forEach(p -> fail(p, route.lost()));
    }
    submission.answer().whenComplete((reply, error) -> {
      if (batchWaitNanos > 0) {
        expectBack((int) going.stream().filter(Proposal::prompt).count(), sentEntry);
      }
      inFlight.release();
      if (error != null) {
        ReplicationException failure = sentEntry.failure(error);
        going.forEach(p -> fail(p, failure));
      }
    });
  }

  /**
   * Times out the proposals past their deadline, and forgets the sessions not
   * answered for longer than any txn of theirs can be in flight.
   */
  private void timeOutExpired() {
    long now = System.nanoTime();
    long forgetAfter = timeout.toNanos() + batchWaitNanos;
    promptness.values().removeIf(p -> now - p.answeredAt() > forgetAfter);
    for (Proposal proposal : waiting.values()) {
      if (now - proposal.deadlineNanos() >= 0 && !proposal.future().isDone()) {
        try {
          timeOut(proposal);
        } catch (RuntimeException e) { // a periodic task that throws is never run again
          LOG.error("timing out proposal {} failed", proposal.key(), e);
        }
      }
    }
  }

  /**
   * A proposal not applied in time. If its entry went out, the entry is
   * abandoned before the caller hears of it: the caller may move on (a stream
   * ends and its client re-attaches elsewhere), and an entry that reached the
   * log after that, sent again by a forwarding client, could undo what the
   * caller did since (a stale attach would move the session off its new stream).
   */
  private void timeOut(Proposal proposal) {
    if (proposal.sent().compareAndSet(null, NEVER_SENT)) {
      fail(proposal, notReady("not sent within " + timeout
          + ": no leader is known (an election is under way, or a majority of the ensemble is down)", null));
      return;
    }
    ReplicationException timedOut = new ReplicationException(ErrorCode.OPERATION_TIMEOUT,
        "not applied within " + timeout + "; the outcome is unknown", null);
    proposal.sent().get().abandon(timedOut);
    fail(proposal, timedOut);
  }

  /**
   * The entry some proposals went out in. Abandoned when the first of them
   * times out; that can happen while the entry is still being handed over,
   * in which case the hand-over abandons it.
   */
  private static final class SentEntry {
    private volatile Submission submission;
    private final AtomicReference<ReplicationException> abandoned = new AtomicReference<>();
    /** Txns queued behind the entry when its first txn was applied; -1 before. Written on the apply thread. */
    private volatile int queuedBehind = -1;

    /** The route the entry went over, once handed over; null before, or when it went into a log directly. */
    Route route() {
      Submission handed = submission;
      return handed == null ? null : handed.route();
    }

    void handedOver(Submission submission) {
      this.submission = submission;
      if (abandoned.get() != null) {
        submission.abandon().run();
      }
    }

    void abandon(ReplicationException why) {
      if (abandoned.compareAndSet(null, why)) {
        Submission handed = submission;
        if (handed != null) {
          handed.abandon().run();
        }
      }
    }

    /** What the entry's proposals fail with when the log's answer is {@code error}. */
    ReplicationException failure(Throwable error) {
      ReplicationException why = abandoned.get();
      return why != null ? why : asReplicationException(error);
    }
  }

  private void fail(Proposal proposal, ReplicationException failure) {
    if (waiting.remove(proposal.key(), proposal)) {
      proposal.future().completeExceptionally(failure);
    }
  }

  private static ReplicationException asReplicationException(Throwable error) {
    Throwable cause = ReplicationException.unwrap(error);
    if (cause instanceof ReplicationException replication) {
      return replication;
    }
    // Sent, then failed (a leader stepping down, retries used up): the entry may still commit.
    return new ReplicationException(ErrorCode.OPERATION_TIMEOUT,
        "the outcome is unknown: the write was sent to the log but not confirmed (" + cause + ")", cause);
  }

  static ReplicationException notReady(String message, Throwable cause) {
    return new ReplicationException(ErrorCode.NOT_READY, message, cause);
  }

  private static long newOrigin() {
    long origin;
    do {
      origin = new SecureRandom().nextLong();
    } while (origin == 0);
    return origin;
  }
}
