package dev.corral.bench.jmh;

import com.google.protobuf.ByteString;
import dev.corral.proto.internal.OpenSession;
import dev.corral.proto.internal.Txn;
import dev.corral.proto.v1.CreateRequest;
import dev.corral.proto.v1.DeleteRequest;
import dev.corral.proto.v1.GetDataRequest;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.SetDataRequest;
import dev.corral.server.tree.DataTree;
import dev.corral.server.tree.TreeRules;
import dev.corral.server.tree.TxnResult;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** The tree's apply path (what every server runs for every log entry), on a tree of 10,000 nodes. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class DataTreeBench {
  private static final int NODES = 10_000;
  private DataTree tree;
  private long zxid;
  private long session;
  private Txn[] setData;
  private Txn create;
  private Txn delete;
  private Request[] reads;
  private int i;

  @Setup(Level.Trial)
  public void setUp() {
    tree = new DataTree();
    session = ++zxid;
    tree.apply(session, 0, TreeRules.CURRENT,
        Txn.newBuilder().setOpenSession(OpenSession.newBuilder().setTimeoutMs(10_000)).build());
    ByteString value = ByteString.copyFrom(new byte[1024]);
    tree.apply(++zxid, 0, TreeRules.CURRENT,
        request(Request.newBuilder().setCreate(CreateRequest.newBuilder().setPath("/bench"))));
    setData = new Txn[NODES];
    reads = new Request[NODES];
    for (int n = 0; n < NODES; n++) {
      String path = "/bench/n" + n;
      tree.apply(++zxid, 0, TreeRules.CURRENT, request(Request.newBuilder().setCreate(
          CreateRequest.newBuilder().setPath(path).setData(value))));
      setData[n] = request(Request.newBuilder().setSetData(
          SetDataRequest.newBuilder().setPath(path).setData(value).setVersion(-1)));
      reads[n] = Request.newBuilder().setGetData(GetDataRequest.newBuilder().setPath(path)).build();
    }
    create = request(Request.newBuilder().setCreate(CreateRequest.newBuilder().setPath("/bench/x").setData(value)));
    delete = request(Request.newBuilder().setDelete(DeleteRequest.newBuilder().setPath("/bench/x").setVersion(-1)));
  }

  private Txn request(Request.Builder request) {
    return Txn.newBuilder().setSessionId(session).setRequest(request).build();
  }

  /** setData of 1 KiB on one of 10,000 nodes. */
  @Benchmark
  public TxnResult applySetData() {
    i = (i + 1) % NODES;
    return tree.apply(++zxid, 1, TreeRules.CURRENT, setData[i]);
  }

  /** create then delete of a 1 KiB node (two applies). */
  @Benchmark
  public TxnResult applyCreateDelete() {
    tree.apply(++zxid, 1, TreeRules.CURRENT, create);
    return tree.apply(++zxid, 1, TreeRules.CURRENT, delete);
  }

  /** getData of one of 10,000 nodes from the tree. */
  @Benchmark
  public Response readGetData() {
    i = (i + 1) % NODES;
    return tree.read(session, reads[i]);
  }
}
