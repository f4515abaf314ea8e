package dev.gputop.agent.runtime;

import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import io.opentelemetry.proto.collector.metrics.v1.MetricsServiceGrpc;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A real OTLP/gRPC metrics receiver for tests (grpc-java's Netty server on 127.0.0.1, plaintext
 * HTTP/2): {@code opentelemetry.proto.collector.metrics.v1.MetricsService/Export} decoded into
 * {@link ExportMetricsServiceRequest}s, with each call's metadata (the exporter's headers and its
 * {@code grpc-encoding}). Thread-safe.
 */
final class GrpcOtlpReceiver implements AutoCloseable {

  final List<ExportMetricsServiceRequest> requests = new CopyOnWriteArrayList<>();
  /** Each call's metadata, lower-case keys (ASCII values only), in arrival order. */
  final List<Map<String, String>> headers = new CopyOnWriteArrayList<>();
  private final Server server;

  /** A receiver on {@code port} of 127.0.0.1 (0: any free port). */
  GrpcOtlpReceiver(int port) throws IOException {
    MetricsServiceGrpc.MetricsServiceImplBase service = new MetricsServiceGrpc.MetricsServiceImplBase() {
      @Override
      public void export(ExportMetricsServiceRequest request, StreamObserver<ExportMetricsServiceResponse> response) {
        requests.add(request);
        response.onNext(ExportMetricsServiceResponse.getDefaultInstance());
        response.onCompleted();
      }
    };
    ServerInterceptor capture = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, R> call, Metadata metadata, ServerCallHandler<Q, R> next) {
        Map<String, String> h = new LinkedHashMap<>();
        for (String key : metadata.keys()) {
          if (!key.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
            h.put(key, metadata.get(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER)));
          }
        }
        headers.add(h);
        return next.startCall(call, metadata);
      }
    };
    server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))
        .addService(ServerInterceptors.intercept(service, capture))
        .build()
        .start();
  }

  /** The value for OTEL_EXPORTER_OTLP_ENDPOINT. */
  String endpoint() {
    return "http://127.0.0.1:" + server.getPort();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
  }
}
