package dev.corral.bench.jmh;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.corral.proto.internal.LogEntry;
import dev.corral.proto.internal.Txn;
import dev.corral.proto.v1.ClientMessage;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.SetDataRequest;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** Request encode/decode on the wire, and a group-commit log entry of 16 txns. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CodecBench {
  private ByteString value;
  private byte[] requestBytes;
  private byte[] entryBytes;
  private LogEntry entry;
  private long xid;

  @Setup
  public void setUp() {
    value = ByteString.copyFrom(new byte[1024]);
    requestBytes = encodeRequest();
    LogEntry.Builder builder = LogEntry.newBuilder().setTimeMs(1_700_000_000_000L);
    for (int i = 0; i < 16; i++) {
      builder.addTxns(Txn.newBuilder().setOrigin(1).setProposalId(i).setSessionId(42)
          .setRequest(parse(requestBytes).getRequest()));
    }
    entry = builder.build();
    entryBytes = entry.toByteArray();
  }

  private static ClientMessage parse(byte[] bytes) {
    try {
      return ClientMessage.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
  }

  @Benchmark
  public byte[] encodeRequest() {
    return ClientMessage.newBuilder().setRequest(Request.newBuilder().setXid(++xid).setSetData(
        SetDataRequest.newBuilder().setPath("/app/config/feature-flags").setData(value).setVersion(-1)))
        .build().toByteArray();
  }

  @Benchmark
  public ClientMessage decodeRequest() throws InvalidProtocolBufferException {
    return ClientMessage.parseFrom(requestBytes);
  }

  @Benchmark
  public byte[] encodeLogEntry16() {
    return entry.toByteArray();
  }

  @Benchmark
  public LogEntry decodeLogEntry16() throws InvalidProtocolBufferException {
    return LogEntry.parseFrom(entryBytes);
  }
}
