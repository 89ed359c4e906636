package dev.corral.client.grpc;

import com.google.protobuf.CodedOutputStream;
import dev.corral.proto.v1.SetWatchesRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * A re-registration of watches cut into SetWatchesRequests of at most
 * {@value #PART_BYTES} bytes of paths each, all but the last marked
 * {@code more}: the server takes them as one set. As one request, watches
 * adding up to more than the server's request cap (4 MiB at least) ended
 * every stream the session opened, for good.
 */
final class SetWatchesParts {
  /** Far below any server's request cap, as ZooKeeper's client cuts its SetWatches at 128 KiB. */
  static final int PART_BYTES = 128 * 1024;

  private final long relativeZxid;
  private final List<SetWatchesRequest.Builder> parts = new ArrayList<>();
  private int bytes;

  SetWatchesParts(long relativeZxid) {
    this.relativeZxid = relativeZxid;
  }

  /** Adds {@code path} to the part being filled, with {@code adder} (which list it goes to). */
  void add(String path, BiConsumer<SetWatchesRequest.Builder, String> adder) {
    int size = CodedOutputStream.computeStringSize(1, path);
    if (parts.isEmpty() || bytes + size > PART_BYTES) {
      parts.add(SetWatchesRequest.newBuilder().setRelativeZxid(relativeZxid));
      bytes = 0;
    }
    adder.accept(parts.get(parts.size() - 1), path);
    bytes += size;
  }

  /** The parts in the order to send them; none if no path was added. */
  List<SetWatchesRequest> build() {
    List<SetWatchesRequest> built = new ArrayList<>(parts.size());
    for (int i = 0; i < parts.size(); i++) {
      built.add(parts.get(i).setMore(i < parts.size() - 1).build());
    }
    return built;
  }
}
