package dev.corral.bench.jmh;

import com.google.protobuf.ByteString;
import dev.corral.client.PathRules;
import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.SetDataRequest;
import dev.corral.server.tree.RequestValidator;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** Path validation (client and server share PathRules) and the server's request validation. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ValidationBench {
  private final String shortPath = "/locks/orders";
  private final String longPath = "/app/services/payments/locks/orders/_c_9f1c2d3e-4b5a-6789-abcd-ef0123456789-lock-0000000042";
  private final RequestValidator validator = new RequestValidator(1 << 20);
  private final Request setData = Request.newBuilder().setXid(7).setSetData(SetDataRequest.newBuilder()
      .setPath(longPath).setData(ByteString.copyFrom(new byte[1024])).setVersion(-1)).build();

  @Benchmark
  public Optional<String> pathShort() {
    return PathRules.violation(shortPath);
  }

  @Benchmark
  public Optional<String> pathLong() {
    return PathRules.violation(longPath);
  }

  @Benchmark
  public Optional<Error> validateSetData() {
    return validator.validate(setData);
  }
}
