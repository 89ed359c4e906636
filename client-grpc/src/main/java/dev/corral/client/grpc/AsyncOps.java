package dev.corral.client.grpc;

import dev.corral.client.AddWatchMode;
import dev.corral.client.AsyncCoordinationClient;
import dev.corral.client.Children;
import dev.corral.client.Code;
import dev.corral.client.CoordinationException;
import dev.corral.client.CreateOptions;
import dev.corral.client.Created;
import dev.corral.client.InvalidArgumentException;
import dev.corral.client.InvalidPathException;
import dev.corral.client.NoWatcherException;
import dev.corral.client.NodeData;
import dev.corral.client.Op;
import dev.corral.client.OpResult;
import dev.corral.client.PathRules;
import dev.corral.client.Stat;
import dev.corral.client.WatchedEvent;
import dev.corral.client.Watcher;
import dev.corral.client.WatcherType;
import dev.corral.proto.v1.AddWatchRequest;
import dev.corral.proto.v1.DeleteRequest;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.ExistsRequest;
import dev.corral.proto.v1.GetAllChildrenNumberRequest;
import dev.corral.proto.v1.GetChildrenRequest;
import dev.corral.proto.v1.GetEphemeralsRequest;
import dev.corral.proto.v1.GetDataRequest;
import dev.corral.proto.v1.MultiRequest;
import dev.corral.proto.v1.PingRequest;
import dev.corral.proto.v1.RemoveWatchesRequest;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.SetDataRequest;
import dev.corral.proto.v1.SyncRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operations: paths checked before anything is sent, requests built,
 * attempts run under the retry policy, answers converted, watches registered
 * when their read succeeded.
 */
final class AsyncOps implements AsyncCoordinationClient {
  private static final Logger log = LoggerFactory.getLogger(AsyncOps.class);
  private static final Consumer<Response> NO_HOOK = response -> { };

  private final SessionManager session;
  private final Namespace namespace;
  private final Retrier retrier;
  private final WatchRegistry watches;
  private final EventQueue events;
  private final NamespaceNode namespaceNode;

  AsyncOps(SessionManager session, Namespace namespace, Retrier retrier, WatchRegistry watches, EventQueue events) {
    this.session = session;
    this.namespace = namespace;
    this.retrier = retrier;
    this.watches = watches;
    this.events = events;
    this.namespaceNode = new NamespaceNode(session, namespace);
  }

  @Override
  public CompletableFuture<Created> create(String path, byte[] data, CreateOptions options) {
    Objects.requireNonNull(options, "options");
    try {
      checkCreated(path, options.mode().isSequential());
      if (options.protection() && path.equals("/")) {
        throw new InvalidPathException("the root cannot be created with protection", path);
      }
    } catch (InvalidPathException e) {
      return CompletableFuture.failedFuture(e);
    }
    Delivery delivery = events.deliveryHere();
    if (options.protection()) {
      return new ProtectedCreate(this, path, data, options, delivery).run();
    }
    Request request = Request.newBuilder().setCreate(Protos.create(namespace.toServer(path), data, options)).build();
    return retrier.run(Idempotence.ONCE, attempt -> send(request, NO_HOOK, delivery))
        .thenApply(r -> Protos.created(r.getCreate(), namespace));
  }

  /**
   * Deletes the node. Deletes are retried after a lost answer: a NoNode on such a
   * retry counts as success, since the lost attempt may well have deleted it.
   */
  @Override
  public CompletableFuture<Void> delete(String path, int version) {
    Optional<CompletableFuture<Void>> invalid = AsyncOps.<Void>invalid(path).or(() -> rootDelete(path));
    if (invalid.isPresent()) {
      return invalid.get();
    }
    Delivery delivery = events.deliveryHere();
    Request request = Request.newBuilder()
        .setDelete(DeleteRequest.newBuilder().setPath(namespace.toServer(path)).setVersion(version)).build();
    AtomicBoolean mayHaveHappened = new AtomicBoolean();
    return retrier.run(Idempotence.REPEATABLE, attempt -> {
      boolean afterLoss = mayHaveHappened.get();
      return send(request, NO_HOOK, delivery).handle((response, failure) -> {
        if (failure == null) {
          return CompletableFuture.<Void>completedFuture(null);
        }
        Code code = RetryDecision.codeOf(failure);
        if (code == Code.NO_NODE && afterLoss) {
          log.debug("Delete of {} answered NoNode after a lost answer: the first attempt deleted it", path);
          return CompletableFuture.<Void>completedFuture(null);
        }
        if (code == Code.CONNECTION_LOSS || code == Code.OPERATION_TIMEOUT) {
          mayHaveHappened.set(true);
        }
        return CompletableFuture.<Void>failedFuture(unwrap(failure));
      }).thenCompose(f -> f);
    });
  }

  @Override
  public CompletableFuture<Optional<Stat>> exists(String path) {
    return exists(path, null, events.deliveryHere());
  }

  @Override
  public CompletableFuture<Optional<Stat>> exists(String path, Watcher watcher) {
    return exists(path, Objects.requireNonNull(watcher, "watcher"), events.deliveryHere());
  }

  private CompletableFuture<Optional<Stat>> exists(String path, Watcher watcher, Delivery delivery) {
    Optional<CompletableFuture<Optional<Stat>>> invalid = invalid(path);
    if (invalid.isPresent()) {
      return invalid.get();
    }
    String serverPath = namespace.toServer(path);
    Request request = Request.newBuilder()
        .setExists(ExistsRequest.newBuilder().setPath(serverPath).setWatch(watcher != null)).build();
    Consumer<Response> hook = watcher == null ? NO_HOOK : r -> {
      if (!r.hasError()) {
        watches.add(r.getExists().hasStat() ? WatchRegistry.Kind.DATA : WatchRegistry.Kind.EXIST, serverPath, watcher);
      }
    };
    return retrier.run(Idempotence.REPEATABLE, attempt -> send(request, hook, delivery))
        .thenApply(r -> r.getExists().hasStat() ? Optional.of(Protos.stat(r.getExists().getStat())) : Optional.empty());
  }

  @Override
  public CompletableFuture<NodeData> getData(String path) {
    return getData(path, null);
  }

  @Override
  public CompletableFuture<NodeData> getData(String path, Watcher watcher) {
    Optional<CompletableFuture<NodeData>> invalid = invalid(path);
    if (invalid.isPresent()) {
      return invalid.get();
    }
    String serverPath = namespace.toServer(path);
    Request request = Request.newBuilder()
        .setGetData(GetDataRequest.newBuilder().setPath(serverPath).setWatch(watcher != null)).build();
    return read(request, watcher == null ? NO_HOOK : watchOnSuccess(WatchRegistry.Kind.DATA, serverPath, watcher))
        .thenApply(r -> Protos.nodeData(r.getGetData()));
  }

  /**
   * Sets the node's data. Retried after a lost answer only for version -1 (a
   * retry of a conditional set that did happen would fail with BadVersion).
   */
  @Override
  public CompletableFuture<Stat> setData(String path, byte[] data, int version) {
    Optional<CompletableFuture<Stat>> invalid = invalid(path);
    if (invalid.isPresent()) {
      return invalid.get();
    }
    Delivery delivery = events.deliveryHere();
    Request request = Request.newBuilder().setSetData(SetDataRequest.newBuilder()
        .setPath(namespace.toServer(path)).setData(Protos.data(data)).setVersion(version)).build();
    Idempotence idempotence = version == -1 ? Idempotence.REPEATABLE : Idempotence.ONCE;
    return retrier.run(idempotence, attempt -> send(request, NO_HOOK, delivery))
        .thenApply(r -> Protos.stat(r.getSetData().getStat()));
  }

  @Override
  public CompletableFuture<Children> getChildren(String path) {
    return getChildren(path, null);
  }

  @Override
  public CompletableFuture<Children> getChildren(String path, Watcher watcher) {
    Optional<CompletableFuture<Children>> invalid = invalid(path);
    if (invalid.isPresent()) {
      return invalid.get();
    }
    String serverPath = namespace.toServer(path);
    Request request = Request.newBuilder()
        .setGetChildren(GetChildrenRequest.newBuilder().setPath(serverPath).setWatch(watcher != null)).build();
    return read(request, watcher == null ? NO_HOOK : watchOnSuccess(WatchRegistry.Kind.CHILD, serverPath, watcher))
        .thenApply(r -> Protos.children(r.getGetChildren()));
  }

  @Override
  public CompletableFuture<List<String>> getEphemerals(String prefixPath) {
    Optional<CompletableFuture<List<String>>> invalid = invalid(prefixPath);
    if (invalid.isPresent()) {
      return invalid.get();
    }
    Request request = Request.newBuilder()
        .setGetEphemerals(GetEphemeralsRequest.newBuilder().setPrefixPath(namespace.toServer(prefixPath))).build();
    // a namespaced session's ephemeral nodes all lie in its namespace; the server sorted them
    return read(request, NO_HOOK).thenApply(r -> r.getGetEphemerals().getPathsList().stream()
        .map(namespace::toClient).toList());
  }

  @Override
  public CompletableFuture<Integer> getAllChildrenNumber(String path) {
    Optional<CompletableFuture<Integer>> invalid = invalid(path);
    if (invalid.isPresent()) {
      return invalid.get();
    }
    Request request = Request.newBuilder()
        .setGetAllChildrenNumber(GetAllChildrenNumberRequest.newBuilder().setPath(namespace.toServer(path))).build();
    return read(request, NO_HOOK).thenApply(r -> r.getGetAllChildrenNumber().getCount());
  }

  /** Runs ops atomically; retried after a lost answer only when every op is a read. */
  @Override
  public CompletableFuture<List<OpResult>> multi(List<Op> ops) {
    Objects.requireNonNull(ops, "ops");
    MultiRequest.Builder multi = MultiRequest.newBuilder();
    boolean readOnly = true;
    try {
      for (Op op : ops) {
        Objects.requireNonNull(op, "op");
        if (op instanceof Op.Create create) {
          checkCreated(op.path(), create.options().mode().isSequential());
        } else {
          PathRules.check(op.path(), false);
        }
        if (op instanceof Op.Delete && op.path().equals("/")) {
          return CompletableFuture.failedFuture(rootDeleteRefused());
        }
        multi.addOps(Protos.multiOp(op, namespace));
        readOnly &= Protos.isRead(op);
      }
    } catch (InvalidPathException e) {
      return CompletableFuture.failedFuture(e);
    }
    Delivery delivery = events.deliveryHere();
    Request request = Request.newBuilder().setMulti(multi).build();
    return retrier.run(readOnly ? Idempotence.REPEATABLE : Idempotence.ONCE, attempt -> send(request, NO_HOOK, delivery))
        .thenApply(r -> Protos.opResults(r.getMulti(), namespace));
  }

  @Override
  public CompletableFuture<Void> sync(String path) {
    Optional<CompletableFuture<Void>> invalid = invalid(path);
    if (invalid.isPresent()) {
      return invalid.get();
    }
    Request request = Request.newBuilder()
        .setSync(SyncRequest.newBuilder().setPath(namespace.toServer(path))).build();
    return read(request, NO_HOOK).thenApply(r -> null);
  }

  @Override
  public CompletableFuture<Void> addWatch(String path, AddWatchMode mode, Watcher watcher) {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(watcher, "watcher");
    Optional<CompletableFuture<Void>> invalid = invalid(path);
    if (invalid.isPresent()) {
      return invalid.get();
    }
    String serverPath = namespace.toServer(path);
    Request request = Request.newBuilder().setAddWatch(AddWatchRequest.newBuilder()
        .setPath(serverPath).setMode(Protos.addWatchMode(mode))).build();
    WatchRegistry.Kind kind = switch (mode) {
      case PERSISTENT -> WatchRegistry.Kind.PERSISTENT;
      case PERSISTENT_RECURSIVE -> WatchRegistry.Kind.PERSISTENT_RECURSIVE;
      case FIRST -> WatchRegistry.Kind.FIRST;
    };
    return read(request, watchOnSuccess(kind, serverPath, watcher)).thenApply(r -> null);
  }

  /**
   * Removes {@code watcher}'s watches of {@code type} on {@code path}: see
   * {@link #dropWatches}, which tells it, with one *_WATCH_REMOVED event per
   * kind of watch removed (on the event queue, as ZooKeeper tells it).
   */
  @Override
  public CompletableFuture<Void> removeWatches(String path, Watcher watcher, WatcherType type, boolean local) {
    Objects.requireNonNull(watcher, "watcher");
    Objects.requireNonNull(type, "type");
    Optional<CompletableFuture<Void>> invalid = invalid(path);
    if (invalid.isPresent()) {
      return invalid.get();
    }
    Set<Watcher> leaving = Set.of(watcher);
    List<dev.corral.proto.v1.WatcherType> serverTypes = watches.serverRemovals(namespace.toServer(path), leaving, type);
    if (serverTypes == null) {
      return CompletableFuture.failedFuture(
          new NoWatcherException("the watcher has no " + type + " watch on " + path, path));
    }
    return dropWatches(path, leaving, type, serverTypes, local);
  }

  /** As {@link #removeWatches} for every watcher with a watch of {@code type} on {@code path}, all at once. */
  @Override
  public CompletableFuture<Void> removeAllWatches(String path, WatcherType type, boolean local) {
    Objects.requireNonNull(type, "type");
    Optional<CompletableFuture<Void>> invalid = invalid(path);
    if (invalid.isPresent()) {
      return invalid.get();
    }
    String serverPath = namespace.toServer(path);
    Set<Watcher> holders = watches.holders(serverPath, type);
    List<dev.corral.proto.v1.WatcherType> serverTypes = watches.serverRemovals(serverPath, holders, type);
    if (serverTypes == null) {
      return CompletableFuture.failedFuture(new NoWatcherException("no " + type + " watch on " + path, path));
    }
    return dropWatches(path, holders, type, serverTypes, local);
  }

  /**
   * Takes the {@code leaving} watchers' watches of {@code type} on {@code path}
   * off the server ({@code serverTypes}: the kinds no other local watcher
   * holds there; a NoWatcher is ignored, the watch had fired meanwhile; with
   * none, the server is only asked to answer, as ZooKeeper's checkWatches),
   * then off this client, on the thread that reads the last answer (so that a
   * watch registered again by a later read is not removed with them). If the
   * server cannot be told, the watches stay, as in ZooKeeper. With
   * {@code local} they go here at once, and the server is told without waiting
   * (a watch it still holds fires unheard and is not registered again).
   */
  private CompletableFuture<Void> dropWatches(String path, Set<Watcher> leaving, WatcherType type,
      List<dev.corral.proto.v1.WatcherType> serverTypes, boolean local) {
    String serverPath = namespace.toServer(path);
    List<dev.corral.proto.v1.WatcherType> told = local ? List.of() : serverTypes;
    Runnable removeHere = () -> {
      List<dev.corral.proto.v1.WatcherType> orphaned = new ArrayList<>(
          watches.remove(serverPath, leaving, type, watcher -> removed -> {
            WatchedEvent event = new WatchedEvent(removed, path, WatchedEvent.NO_ZXID);
            events.execute(() -> watcher.process(event));
          }));
      // local: the server is told now, without waiting; otherwise a removal of other watchers under way
      // alongside may have left these to us: the server must not keep them
      orphaned.removeAll(told);
      orphaned.forEach(serverType -> read(removal(serverPath, serverType), NO_HOOK));
    };
    if (local) {
      removeHere.run();
      return CompletableFuture.completedFuture(null);
    }
    List<Request> requests = new ArrayList<>(serverTypes.stream().map(t -> removal(serverPath, t)).toList());
    if (requests.isEmpty()) { // the server keeps its watch for other watchers; still, it must answer
      requests.add(Request.newBuilder().setPing(PingRequest.getDefaultInstance()).build());
    }
    AtomicInteger unanswered = new AtomicInteger(requests.size());
    Consumer<Response> answered = response -> {
      boolean done = !response.hasError() || response.getError().getCode() == ErrorCode.NO_WATCHER;
      if (done && unanswered.decrementAndGet() == 0) {
        removeHere.run();
      }
    };
    return CompletableFuture.allOf(requests.stream()
        .map(request -> ignoringNoWatcher(read(request, answered)))
        .toArray(CompletableFuture[]::new));
  }

  private static Request removal(String serverPath, dev.corral.proto.v1.WatcherType serverType) {
    return Request.newBuilder().setRemoveWatches(RemoveWatchesRequest.newBuilder()
        .setPath(serverPath).setType(serverType)).build();
  }

  /** {@code call}, with a NoWatcher failure turned into success (null); other failures stay. */
  private static <T> CompletableFuture<T> ignoringNoWatcher(CompletableFuture<T> call) {
    return call.exceptionally(failure -> {
      if (RetryDecision.codeOf(failure) == Code.NO_WATCHER) {
        return null;
      }
      throw new CompletionException(unwrap(failure));
    });
  }

  // ---------------------------------------------------------------- sending

  /** Sends a request that is safe to repeat, under the retry policy. */
  private CompletableFuture<Response> read(Request request, Consumer<Response> hook) {
    Delivery delivery = events.deliveryHere();
    return retrier.run(Idempotence.REPEATABLE, attempt -> send(request, hook, delivery));
  }

  /** One attempt: the answer, or its error as a {@link CoordinationException}. */
  CompletableFuture<Response> send(Request request, Consumer<Response> hook, Delivery delivery) {
    namespaceNode.ensure();
    return session.submit(request, hook, delivery).thenApply(response -> {
      try {
        return Errors.check(response, namespace);
      } catch (CoordinationException e) {
        throw new CompletionException(e);
      }
    });
  }

  Namespace namespace() {
    return namespace;
  }

  Retrier retrier() {
    return retrier;
  }

  private Consumer<Response> watchOnSuccess(WatchRegistry.Kind kind, String serverPath, Watcher watcher) {
    return r -> {
      if (!r.hasError()) {
        watches.add(kind, serverPath, watcher);
      }
    };
  }

  /**
   * A delete of "/" fails here, as the server refuses to delete its root: under
   * a chroot or namespace it would otherwise delete that node (ZooKeeper's
   * client refuses it too).
   */
  private static <T> Optional<CompletableFuture<T>> rootDelete(String path) {
    return path.equals("/") ? Optional.of(CompletableFuture.failedFuture(rootDeleteRefused())) : Optional.empty();
  }

  private static InvalidArgumentException rootDeleteRefused() {
    return new InvalidArgumentException("the root node cannot be deleted", "/");
  }

  /** A path to create: the path rules, then its length as the server will see it (chroot and namespace added). */
  private void checkCreated(String path, boolean sequential) throws InvalidPathException {
    PathRules.check(path, sequential);
    PathRules.checkLength(namespace.toServer(path), sequential);
  }

  private static <T> Optional<CompletableFuture<T>> invalid(String path) {
    try {
      PathRules.check(path, false);
      return Optional.empty();
    } catch (InvalidPathException e) {
      return Optional.of(CompletableFuture.failedFuture(e));
    }
  }

  static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
