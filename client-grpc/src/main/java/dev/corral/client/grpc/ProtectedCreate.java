package dev.corral.client.grpc;

import dev.corral.client.Code;
import dev.corral.client.CreateOptions;
import dev.corral.client.Created;
import dev.corral.client.Paths;
import dev.corral.client.Protection;
import dev.corral.proto.v1.ExistsRequest;
import dev.corral.proto.v1.GetChildrenRequest;
import dev.corral.proto.v1.Request;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A create with protection: the node is named with one GUID for the whole call.
 * A retry (after the answer was lost) first lists the parent and adopts the node
 * carrying the GUID; only if there is none does it create again. Exactly one
 * node results.
 */
final class ProtectedCreate {
  private static final Logger log = LoggerFactory.getLogger(ProtectedCreate.class);

  private final AsyncOps ops;
  private final String guid = Protection.newGuid();
  private final String serverParent;
  private final Request create;
  private final Delivery delivery;

  ProtectedCreate(AsyncOps ops, String path, byte[] data, CreateOptions options, Delivery delivery) {
    this.ops = ops;
    this.delivery = delivery;
    String protectedPath = Protection.protect(path, guid);
    this.serverParent = ops.namespace().toServer(Paths.parent(protectedPath));
    this.create = Request.newBuilder()
        .setCreate(Protos.create(ops.namespace().toServer(protectedPath), data, options)).build();
  }

  CompletableFuture<Created> run() {
    return ops.retrier().run(Idempotence.PROTECTED, attempt -> attempt == 1 ? createOnce() : findOrCreate());
  }

  private CompletableFuture<Created> createOnce() {
    return ops.send(create, response -> { }, delivery)
        .thenApply(response -> Protos.created(response.getCreate(), ops.namespace()));
  }

  private CompletableFuture<Created> findOrCreate() {
    Request list = Request.newBuilder().setGetChildren(GetChildrenRequest.newBuilder().setPath(serverParent)).build();
    return ops.send(list, response -> { }, delivery).handle((response, failure) -> {
      if (failure != null) {
        return RetryDecision.codeOf(failure) == Code.NO_NODE
            ? createOnce() : CompletableFuture.<Created>failedFuture(AsyncOps.unwrap(failure));
      }
      Optional<String> own = Protection.findOwn(response.getGetChildren().getChildrenList(), guid);
      return own.isPresent() ? adopt(Paths.join(serverParent, own.get())) : createOnce();
    }).thenCompose(f -> f);
  }

  private CompletableFuture<Created> adopt(String serverPath) {
    Request exists = Request.newBuilder().setExists(ExistsRequest.newBuilder().setPath(serverPath)).build();
    return ops.send(exists, response -> { }, delivery).thenCompose(response -> {
      if (!response.getExists().hasStat()) {
        return createOnce();
      }
      log.debug("Adopted {}, created by an attempt whose answer was lost", serverPath);
      return CompletableFuture.completedFuture(
          new Created(ops.namespace().toClient(serverPath), Protos.stat(response.getExists().getStat())));
    });
  }
}
