package dev.corral.server.tree;

import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.WatchEvent;
import java.util.List;

/**
 * What applying one txn did: the answer for the proposer (xid not set; the
 * session layer sets it) and the change events it caused, in order.
 */
public record TxnResult(Response response, List<WatchEvent> events) {
  public TxnResult {
    events = List.copyOf(events);
  }
}
