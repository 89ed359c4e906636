package dev.corral.server.rpc;

import com.google.protobuf.ByteString;
import dev.corral.proto.internal.AttachSession;
import dev.corral.proto.internal.CloseSession;
import dev.corral.proto.internal.OpenSession;
import dev.corral.proto.internal.Txn;
import dev.corral.proto.v1.AddWatchResult;
import dev.corral.proto.v1.ClientMessage;
import dev.corral.proto.v1.CloseSessionResult;
import dev.corral.proto.v1.Connect;
import dev.corral.proto.v1.Connected;
import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.EventType;
import dev.corral.proto.v1.PingResult;
import dev.corral.proto.v1.RemoveWatchesResult;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.ServerMessage;
import dev.corral.proto.v1.SetWatchesRequest;
import dev.corral.proto.v1.SetWatchesResult;
import dev.corral.proto.v1.SyncResult;
import dev.corral.proto.v1.WatchEvent;
import dev.corral.server.ServerConfig;
import dev.corral.server.ServerCore;
import dev.corral.server.ServerCore.AttachOutcome;
import dev.corral.server.session.SessionSink;
import dev.corral.server.tree.DataTree;
import dev.corral.server.tree.RequestValidator;
import dev.corral.server.tree.TxnResult;
import dev.corral.server.watch.WatchKind;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One session stream: the handshake, then requests answered strictly in
 * order. Each request takes a {@link Slot}; slots are answered from the head
 * of the queue once ready, under the core's read lock, so answers interleave
 * correctly with the watch events that applies send under the write lock.
 *
 * <p>gRPC flow control caps the requests in flight per session: a request is
 * read only when an earlier one was answered and the client is reading what it
 * is sent (the call is ready), so a client that stops reading stops being read.
 * A client that half-closes is answered every request it sent, then the stream
 * ends normally (the session stays, as after a broken stream).
 */
final class SessionStream implements StreamObserver<ClientMessage>, SessionSink {
  private static final Logger log = LoggerFactory.getLogger(SessionStream.class);

  private enum Phase { AWAITING_CONNECT, CONNECTING, ATTACHED }

  /** What a client takes when its Connect does not say: gRPC's default receive limit. */
  static final int DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
  /**
   * The least a client may say it takes: room for any watch event (its path is
   * at most {@value dev.corral.client.PathRules#MAX_PATH_BYTES} bytes: events
   * are never replaced, as answers are) and for the error that replaces a
   * larger answer.
   */
  static final int MIN_MAX_MESSAGE_BYTES = 8192;

  private final ServerCore core;
  private final RequestValidator validator;
  private final ServerConfig config;
  private final SecureRandom random;
  private final ServerCallStreamObserver<ServerMessage> out;
  private final Queue<Slot> slots = new ConcurrentLinkedQueue<>();
  /**
   * Requests that arrived while the client was behind on reading, not yet
   * handled: a request is handled (a read answered, a change proposed) only
   * while the client keeps up, so a burst of reads with large answers waits
   * for it rather than piling its answers up in the server's memory.
   */
  private final Queue<Request> held = new ConcurrentLinkedQueue<>();
  private final Object drainLock = new Object();
  private final Object sendLock = new Object();
  private volatile Phase phase = Phase.AWAITING_CONNECT;
  private volatile long sessionId;
  /** This stream's token, sent with every change it proposes (see Txn.attachment in log.proto). */
  private final long attachment;
  private volatile boolean ended; // written under sendLock
  private volatile boolean halfClosed;
  private long zxidSent; // guarded by sendLock: the highest zxid sent on this stream
  /** The largest message the client takes (Connect.max_message_bytes); set before anything is answered. */
  private volatile int maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;
  /** Guarded by sendLock: bytes sent since the call was last ready (the client read); see send. */
  private long unreadBytes;
  private int unreadAnswers; // guarded by creditLock: answers sent while the client was not reading
  /** Guarded by drainLock (answers are computed there, in order): the parts of a SetWatches sent in several. */
  private SetWatchesRequest.Builder setWatchesSoFar;
  private long setWatchesBytesSoFar; // guarded by drainLock: their size
  /** The most the parts of one SetWatches may hold: over a million watched paths of 200 bytes. */
  static final long MAX_SET_WATCHES_PARTS_BYTES = 256L * 1024 * 1024;
  private final Object creditLock = new Object();

  SessionStream(ServerCore core, RequestValidator validator, ServerConfig config, SecureRandom random,
      ServerCallStreamObserver<ServerMessage> out) {
    this.core = core;
    this.validator = validator;
    this.config = config;
    this.random = random;
    this.out = out;
    this.attachment = newToken(random);
  }

  private static long newToken(SecureRandom random) {
    long token;
    do {
      token = random.nextLong();
    } while (token == 0);
    return token;
  }

  // --------------------------------------------------------- from the client

  @Override
  public void onNext(ClientMessage message) {
    if (ended) {
      return; // e.g. the session moved to another stream: what is still in flight here is not run
    }
    try {
      if (message.getSerializedSize() > config.maxRequestBytes()) {
        fatal(ErrorCode.REQUEST_TOO_LARGE, "a message of " + message.getSerializedSize()
            + " bytes is over the request-size cap of " + config.maxRequestBytes() + " bytes");
        return;
      }
      switch (message.getKindCase()) {
        case CONNECT -> {
          if (phase != Phase.AWAITING_CONNECT) {
            fatal(ErrorCode.HANDSHAKE_REQUIRED, "the stream already sent Connect; send it only once");
          } else {
            phase = Phase.CONNECTING;
            connect(message.getConnect());
          }
        }
        case REQUEST -> {
          if (phase != Phase.ATTACHED) {
            fatal(ErrorCode.HANDSHAKE_REQUIRED,
                "request xid " + message.getRequest().getXid() + " arrived before the Connect handshake");
          } else {
            core.touch(sessionId);
            if (!held.isEmpty() || !out.isReady()) {
              held.add(message.getRequest()); // the client is behind on reading: taken up once it reads (ready)
            } else {
              handle(message.getRequest());
            }
          }
        }
        default -> fatal(ErrorCode.UNKNOWN_OPERATION,
            "the message has neither connect nor request (or a kind this server does not know)");
      }
    } catch (RuntimeException e) {
      serverFault(e);
    }
  }

  /** A request held while the client did not read; a fault in it ends the stream, as in {@link #onNext}. */
  private void handleGuarded(Request request) {
    try {
      handle(request);
    } catch (RuntimeException e) {
      serverFault(e);
    }
  }

  private void serverFault(RuntimeException e) {
    log.error("Session stream failed on a message", e);
    fatal(ErrorCode.INTERNAL, "server fault: " + e);
  }

  /** A message that did not decode: a protocol error, as for any other malformed message. */
  void undecodable(String why) {
    if (!ended) {
      fatal(ErrorCode.INVALID_ARGUMENT, "a message could not be decoded as a ClientMessage: " + why);
    }
  }

  @Override
  public void onError(Throwable t) {
    log.debug("Stream of session 0x{} broke: {}", Long.toHexString(sessionId), t.toString());
    endQuietly();
  }

  /** The client half-closed: answer what it sent, then end the stream normally. */
  @Override
  public void onCompleted() {
    halfClosed = true;
    switch (phase) {
      case AWAITING_CONNECT -> endNormally();
      case CONNECTING -> { } // attached() ends the stream after the handshake's answer
      case ATTACHED -> drain();
    }
  }

  /**
   * The client reads again (the call became ready): handle the requests that
   * arrived meanwhile, in order, while it keeps up, and let in those held
   * back in the transport.
   */
  void ready() {
    Request next;
    while (!ended && out.isReady() && (next = held.peek()) != null) {
      handleGuarded(next);
      held.poll(); // only now: a drain that sees nothing held must also see its slot, or it ends a half-closed stream
    }
    if (halfClosed && phase == Phase.ATTACHED && held.isEmpty()) {
      drain(); // ends the stream once every request is answered
    }
    int owed;
    synchronized (creditLock) {
      owed = unreadAnswers;
      unreadAnswers = 0;
    }
    if (owed > 0) {
      out.request(owed);
    }
  }

  /** The client cancelled the call. */
  void cancelled() {
    endQuietly();
  }

  // -------------------------------------------------------------- handshake

  private void connect(Connect connect) {
    Optional<String> notServing = core.notServing();
    if (notServing.isPresent()) {
      fatal(ErrorCode.NOT_READY, notServing.get());
      return;
    }
    int takes = connect.getMaxMessageBytes();
    if (takes != 0) {
      if (takes < MIN_MAX_MESSAGE_BYTES) {
        fatal(ErrorCode.INVALID_ARGUMENT, "max_message_bytes is " + takes + "; it must be at least "
            + MIN_MAX_MESSAGE_BYTES + ", or 0 for gRPC's default of " + DEFAULT_MAX_MESSAGE_BYTES);
        return;
      }
      maxMessageBytes = takes;
    }
    if (connect.getSessionId() == 0) {
      openSession(connect);
      return;
    }
    AttachOutcome outcome = core.attach(connect.getSessionId(), connect.getPassword(), connect.getLastZxidSeen(), this);
    if (!outcome.isAttached()) {
      fatal(outcome.refusal());
      return;
    }
    sessionId = connect.getSessionId();
    proposeAttach(outcome.replaces());
    attached(outcome.connected());
  }

  /**
   * Writes the re-attach to the log, ahead of every change this stream will
   * propose: once applied, changes the session's earlier streams sent are
   * refused. It names the attachment it takes over ({@code replaces}), so that
   * it is refused in turn if another re-attach got there first: a re-attach
   * through a stream the client has left, applied late, would otherwise take
   * the session back to that stream, and a write sent there would apply after
   * the copy the client re-sent (seen in EnsembleFaultTest: one write applied
   * at entries 0x8a4 and 0x8a5). Reads go on meanwhile. If it fails, the
   * stream ends and the client re-attaches (its changes here would be refused
   * anyway).
   */
  private void proposeAttach(long replaces) {
    core.replicator().propose(Txn.newBuilder()
            .setSessionId(sessionId)
            .setAttachment(replaces)
            .setAttachSession(AttachSession.newBuilder().setAttachment(attachment)))
        .whenComplete((result, failure) -> {
          if (failure != null) {
            fatal(Replies.fromFailure(failure));
          } else if (result.response().hasError()) {
            fatal(result.response().getError());
          }
        });
  }

  private void openSession(Connect connect) {
    Optional<AttachOutcome> behind = core.refuseIfBehind(connect.getLastZxidSeen());
    if (behind.isPresent()) {
      fatal(behind.get().refusal());
      return;
    }
    byte[] password = new byte[16];
    random.nextBytes(password);
    OpenSession open = OpenSession.newBuilder()
        .setTimeoutMs(config.negotiateTimeoutMs(connect.getTimeoutMs()))
        .setPassword(ByteString.copyFrom(password))
        .setAttachment(attachment)
        .build();
    core.replicator().propose(Txn.newBuilder().setOpenSession(open)).whenComplete((result, failure) -> {
      if (failure != null) {
        fatal(Replies.fromFailure(failure));
      } else if (result.response().hasError()) {
        fatal(result.response().getError());
      } else {
        sessionId = result.response().getZxid();
        attached(core.attachNew(sessionId, this));
        log.info("Session 0x{} opened, timeout {} ms", Long.toHexString(sessionId), open.getTimeoutMs());
      }
    });
  }

  private void attached(Connected connected) {
    Connected withLimits = connected.toBuilder()
        .setMaxRequestBytes(config.maxRequestBytes())
        .setMaxDataBytes(config.maxDataBytes())
        .build();
    if (!send(ServerMessage.newBuilder().setConnected(withLimits).build())) {
      core.detach(sessionId, this);
      return;
    }
    phase = Phase.ATTACHED;
    out.request(config.maxOutstandingRequests());
    if (halfClosed) {
      drain();
    }
  }

  // --------------------------------------------------------------- requests

  private void handle(Request request) {
    long xid = request.getXid();
    if (request.getOpCase() == Request.OpCase.OP_NOT_SET) {
      fatal(ErrorCode.UNKNOWN_OPERATION,
          "request xid " + xid + " has no operation, or one this server does not know");
      return;
    }
    Optional<Response> refused = validator.refusal(request);
    if (refused.isPresent()) {
      enqueue(Slot.local(xid, () -> refused.get().toBuilder().setXid(xid).setZxid(core.appliedZxid()).build()));
      return;
    }
    switch (request.getOpCase()) {
      case CREATE, DELETE, SET_DATA -> enqueueWrite(request);
      // a multi of reads only changes nothing: answered here, as a read, without a round of the log
      case MULTI -> {
        if (DataTree.readsOnly(request.getMulti())) {
          enqueueRead(request);
        } else {
          enqueueWrite(request);
        }
      }
      case EXISTS, GET_DATA, GET_CHILDREN, GET_EPHEMERALS, GET_ALL_CHILDREN_NUMBER -> enqueueRead(request);
      case PING -> enqueue(Slot.local(xid, () -> ok(xid).setPing(PingResult.getDefaultInstance()).build()));
      case SYNC -> enqueue(new Slot(xid, core.replicator().sync(),
          () -> ok(xid).setSync(SyncResult.newBuilder().setPath(request.getSync().getPath())).build(), () -> { }));
      case ADD_WATCH -> enqueueAddWatch(request);
      case REMOVE_WATCHES -> enqueue(Slot.local(xid, () -> removeWatches(request)));
      case SET_WATCHES -> enqueue(Slot.local(xid, () -> setWatches(request)));
      case CLOSE_SESSION -> enqueueClose(xid);
      default -> fatal(ErrorCode.UNKNOWN_OPERATION, "request xid " + xid + ": operation "
          + request.getOpCase() + " is not supported");
    }
  }

  private void enqueueRead(Request request) {
    long xid = request.getXid();
    enqueue(Slot.local(xid, () -> withXid(core.read(sessionId, request), xid)));
  }

  private void enqueueWrite(Request request) {
    long xid = request.getXid();
    CompletableFuture<TxnResult> proposal = core.replicator().propose(change().setRequest(request));
    enqueue(new Slot(xid, proposal, () -> answerOf(proposal, xid), () -> endIfLeftBehind(proposal)));
  }

  /** A change the client sends through this stream: refused once the session re-attached elsewhere. */
  private Txn.Builder change() {
    return Txn.newBuilder().setSessionId(sessionId).setAttachment(attachment);
  }

  /**
   * After the answer to a change whose outcome is unknown (it may still apply)
   * or that was refused because the session moved: ends the stream, so that
   * the client re-attaches before it sends that change again, and a late copy
   * of it is refused rather than applied twice.
   */
  private void endIfLeftBehind(CompletableFuture<TxnResult> proposal) {
    ErrorCode code;
    try {
      code = proposal.join().response().getError().getCode();
    } catch (CompletionException e) {
      code = Replies.fromFailure(e).getCode();
    }
    if (code == ErrorCode.OPERATION_TIMEOUT) {
      fatal(ErrorCode.OPERATION_TIMEOUT, "a change sent on this stream has an unknown outcome;"
          + " re-attach the session before sending it again");
    } else if (code == ErrorCode.SESSION_MOVED) {
      fatal(ErrorCode.SESSION_MOVED, "session 0x" + Long.toHexString(sessionId)
          + " was re-attached through another stream");
    }
  }

  private void enqueueClose(long xid) {
    CompletableFuture<TxnResult> proposal = core.replicator().propose(
        change().setCloseSession(CloseSession.newBuilder().setReason(CloseSession.Reason.CLIENT)));
    enqueue(new Slot(xid, proposal, () -> {
      Response answer = answerOf(proposal, xid);
      return answer.hasError() ? answer : answer.toBuilder().setCloseSession(CloseSessionResult.getDefaultInstance()).build();
    }, () -> {
      if (!proposal.isCompletedExceptionally() && !proposal.join().response().hasError()) {
        endNormally();
      } else {
        endIfLeftBehind(proposal);
      }
    }));
  }

  private Response answerOf(CompletableFuture<TxnResult> proposal, long xid) {
    try {
      return withXid(proposal.join().response(), xid);
    } catch (CompletionException e) {
      return Replies.failed(xid, core.appliedZxid(), Replies.fromFailure(e));
    }
  }

  /**
   * A FIRST watch whose node's turn has come already is answered, then its
   * NODE_FIRST event is sent at once: after the answer, which the client
   * needs to have registered its watcher.
   */
  private void enqueueAddWatch(Request request) {
    List<WatchEvent> atOnce = new ArrayList<>(1);
    enqueue(Slot.local(request.getXid(), () -> addWatch(request, atOnce), () -> atOnce.forEach(this::event)));
  }

  private Response addWatch(Request request, List<WatchEvent> atOnce) {
    var add = request.getAddWatch();
    switch (add.getMode()) {
      case FIRST_WATCH_MODE -> {
        Optional<WatchEvent> now = core.watchTurn(sessionId, add.getPath());
        if (now.isPresent() && now.get().getType() == EventType.NODE_DELETED) {
          return Replies.failed(request.getXid(), core.appliedZxid(), Error.newBuilder()
              .setCode(ErrorCode.NO_NODE)
              .setMessage("no node " + add.getPath() + " to leave a FIRST watch on")
              .setPath(add.getPath())
              .build());
        }
        now.ifPresent(atOnce::add);
      }
      case PERSISTENT_RECURSIVE_WATCH_MODE -> core.watches().add(sessionId, WatchKind.PERSISTENT_RECURSIVE, add.getPath());
      default -> core.watches().add(sessionId, WatchKind.PERSISTENT, add.getPath());
    }
    return ok(request.getXid()).setAddWatch(AddWatchResult.getDefaultInstance()).build();
  }

  private Response removeWatches(Request request) {
    var remove = request.getRemoveWatches();
    if (!core.watches().remove(sessionId, remove.getPath(), remove.getType())) {
      return Replies.failed(request.getXid(), core.appliedZxid(), Error.newBuilder()
          .setCode(ErrorCode.NO_WATCHER)
          .setMessage("no " + remove.getType() + " watch on " + remove.getPath())
          .setPath(remove.getPath())
          .build());
    }
    return ok(request.getXid()).setRemoveWatches(RemoveWatchesResult.getDefaultInstance()).build();
  }

  /**
   * Registers the watches of a SetWatches, or keeps them until the last part
   * of a set sent in several (more = true on all the others), so that the
   * whole set is replayed once, as one request would be.
   */
  private Response setWatches(Request request) {
    SetWatchesRequest part = request.getSetWatches();
    SetWatchesRequest.Builder whole = setWatchesSoFar != null ? setWatchesSoFar : SetWatchesRequest.newBuilder();
    setWatchesBytesSoFar = (setWatchesSoFar != null ? setWatchesBytesSoFar : 0) + part.getSerializedSize();
    if (setWatchesBytesSoFar > MAX_SET_WATCHES_PARTS_BYTES) {
      fatal(ErrorCode.REQUEST_TOO_LARGE, "the parts of a SetWatches hold over " + MAX_SET_WATCHES_PARTS_BYTES
          + " bytes");
      return ok(request.getXid()).build(); // not sent: the stream ended
    }
    whole.mergeFrom(part);
    setWatchesSoFar = part.getMore() ? whole : null;
    if (!part.getMore()) {
      for (WatchEvent missed : core.setWatches(sessionId, whole.setMore(false).build())) {
        send(ServerMessage.newBuilder().setEvent(missed).build());
      }
    }
    return ok(request.getXid()).setSetWatches(SetWatchesResult.getDefaultInstance()).build();
  }

  private Response.Builder ok(long xid) {
    return Response.newBuilder().setXid(xid).setZxid(core.appliedZxid());
  }

  private static Response withXid(Response response, long xid) {
    return response.toBuilder().setXid(xid).build();
  }

  // ----------------------------------------------------------------- answers

  private void enqueue(Slot slot) {
    slots.add(slot);
    slot.gate().whenComplete((ignored, failure) -> drain());
  }

  /**
   * Answers every ready slot at the head of the queue; after a half-close,
   * ends the stream once every slot is answered. Runs under the core's read
   * lock (re-entrant on the apply thread), so no change is applied while an
   * answer is computed and sent.
   */
  private void drain() {
    core.readLocked(() -> {
      synchronized (drainLock) {
        Slot head;
        while ((head = slots.peek()) != null && head.ready()) {
          slots.poll();
          send(ServerMessage.newBuilder().setResponse(answer(head)).build());
          head.afterSend().run();
          readNext();
        }
        // held first: ready() adds a held request's slot, then takes it off held, so nothing is seen in neither
        if (halfClosed && held.isEmpty() && slots.isEmpty()) {
          endNormally();
        }
      }
      return null;
    });
  }

  /** Lets the next request in now, or once the client reads what it was sent ({@link #ready}). */
  private void readNext() {
    synchronized (creditLock) {
      if (!out.isReady()) {
        unreadAnswers++;
        return;
      }
    }
    out.request(1);
  }

  private Response answer(Slot slot) {
    try {
      return slot.answer().get();
    } catch (RuntimeException e) {
      log.error("Answering xid {} of session 0x{} failed", slot.xid(), Long.toHexString(sessionId), e);
      return Replies.failed(slot.xid(), core.appliedZxid(), Replies.error(ErrorCode.INTERNAL, "server fault: " + e));
    }
  }

  // ---------------------------------------------------------- from the core

  @Override
  public void event(WatchEvent event) {
    send(ServerMessage.newBuilder().setEvent(event).build());
  }

  @Override
  public void sessionClosed(CloseSession.Reason reason) {
    if (reason == CloseSession.Reason.EXPIRED) {
      fatal(ErrorCode.SESSION_EXPIRED, "session 0x" + Long.toHexString(sessionId) + " expired");
    }
    // A client close ends the stream once its answer is sent (see enqueueClose).
  }

  @Override
  public void serverStopped(String why) {
    fatal(ErrorCode.NOT_READY, why);
  }

  @Override
  public long attachment() {
    return attachment;
  }

  @Override
  public void moved() {
    fatal(ErrorCode.SESSION_MOVED, "session 0x" + Long.toHexString(sessionId) + " was attached to another stream");
  }

  // ------------------------------------------------------------------ output

  /**
   * Sends a message unless the stream ended; false if it did. Ends the stream
   * with CLIENT_NOT_READING instead once more than the cap was sent while its
   * client did not read: gRPC would buffer it all in the server's memory.
   */
  private boolean send(ServerMessage message) {
    long unread;
    synchronized (sendLock) {
      if (ended || out.isCancelled()) {
        return false;
      }
      ServerMessage ordered = fitted(inZxidOrder(message));
      unreadBytes = out.isReady() ? 0 : unreadBytes + ordered.getSerializedSize();
      unread = unreadBytes;
      if (unread <= config.maxUnreadBytes()) {
        return transmit(() -> out.onNext(ordered));
      }
    }
    fatal(ErrorCode.CLIENT_NOT_READING, "the client did not read its stream: " + unread
        + " bytes were sent while it was full, over the cap of " + config.maxUnreadBytes() + " bytes");
    return false;
  }

  /**
   * Hands {@code call} to gRPC; false, and the stream ended, if gRPC had
   * closed the call underneath (after a send that failed). A session's dead
   * stream must not fail the log's apply thread, which sends its events.
   * The caller holds sendLock.
   */
  private boolean transmit(Runnable call) {
    try {
      call.run();
      return true;
    } catch (IllegalStateException e) {
      ended = true;
      log.warn("The stream of session 0x{} was closed under it: {}", Long.toHexString(sessionId), e.getMessage());
      return false;
    }
  }

  /**
   * The message, or, for an answer larger than the client takes, a
   * RESPONSE_TOO_LARGE error in its place: the client's gRPC would end the
   * stream on the answer (a getChildren of a node with many children, a multi
   * of many reads). Protobuf keeps the size it computes here for the send.
   */
  private ServerMessage fitted(ServerMessage message) {
    if (!message.hasResponse()) {
      return message;
    }
    int size = message.getSerializedSize();
    if (size <= maxMessageBytes) {
      return message;
    }
    Response answer = message.getResponse();
    Error tooLarge = Replies.error(ErrorCode.RESPONSE_TOO_LARGE, "the answer to request xid " + answer.getXid()
        + " takes " + size + " bytes, over the " + maxMessageBytes + " this client takes (Connect.max_message_bytes);"
        + " the request was carried out, only its answer is withheld");
    return ServerMessage.newBuilder().setResponse(Replies.failed(answer.getXid(), answer.getZxid(), tooLarge)).build();
  }

  /**
   * The message, with a response's zxid raised to the highest zxid this stream
   * already sent: a write answered behind a slower request (e.g. a sync) may
   * have been applied before changes whose zxids the session was already sent.
   */
  private ServerMessage inZxidOrder(ServerMessage message) {
    long zxid = switch (message.getKindCase()) {
      case CONNECTED -> message.getConnected().getZxid();
      case RESPONSE -> message.getResponse().getZxid();
      case EVENT -> message.getEvent().getZxid();
      default -> 0;
    };
    if (message.hasResponse() && zxid < zxidSent) {
      return message.toBuilder().setResponse(message.getResponse().toBuilder().setZxid(zxidSent)).build();
    }
    zxidSent = Math.max(zxidSent, zxid);
    return message;
  }

  private void fatal(ErrorCode code, String message) {
    fatal(Replies.error(code, message));
  }

  private void fatal(Error error) {
    synchronized (sendLock) {
      if (ended) {
        return;
      }
      ended = true;
      if (!out.isCancelled()) {
        transmit(() -> {
          out.onNext(ServerMessage.newBuilder().setFatal(error).build());
          out.onError(Replies.statusOf(error).asRuntimeException());
        });
      }
    }
    log.info("Ended stream of session 0x{}: {} {}", Long.toHexString(sessionId), error.getCode(), error.getMessage());
    detach();
  }

  private void endNormally() {
    synchronized (sendLock) {
      if (ended) {
        return;
      }
      ended = true;
      if (!out.isCancelled()) {
        transmit(out::onCompleted);
      }
    }
    detach();
  }

  private void endQuietly() {
    synchronized (sendLock) {
      ended = true;
    }
    detach();
  }

  private void detach() {
    if (sessionId != 0) {
      core.detach(sessionId, this);
    }
  }

}
