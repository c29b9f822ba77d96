package io.sstableflight.trino;

import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientStreamTracer;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.AbstractStub;
import org.apache.arrow.flight.CallOptions;

import java.util.concurrent.CompletableFuture;

/**
 * What gRPC has handed one DoGet call's FlightStream, for a page source to
 * wait on without holding a thread. FlightStream.next() blocks on a queue
 * that gRPC's callbacks fill and tells nobody when it fills; so this call
 * option puts an interceptor on the call whose listener counts each message
 * once FlightStream has taken it (the schema, then one per record batch,
 * each queued) and notes the call's end (then the queue holds its outcome),
 * and a stream tracer that notes whether the server itself answered (sent
 * headers or trailers). When {@code n} messages arrived, the first
 * {@code n - 1} calls of next() return without waiting.
 *
 * The count holds for sstable-flight's streams, a schema message and then
 * only record batches (docs/flight-api.md). A Flight server that also sent
 * dictionary batches or metadata-only messages would make next() wait for
 * the message after one of them; that wait is bounded by the caller's
 * sstable-flight.next-batch-timeout like any other.
 *
 * A status without an answer from the server (no trailers) was made up on
 * this side: a connection gRPC could not open, one reset, or one its
 * keepalive found dead. Only an UNAVAILABLE the server sent means it is
 * there and busy.
 */
final class StreamArrivals
        implements CallOptions.GrpcCallOption
{
    private final ClientStreamTracer.Factory tracer = new ClientStreamTracer.Factory()
    {
        @Override
        public ClientStreamTracer newClientStreamTracer(ClientStreamTracer.StreamInfo info, Metadata headers)
        {
            return new ClientStreamTracer()
            {
                @Override
                public void inboundHeaders()
                {
                    answered = true;
                }

                @Override
                public void inboundTrailers(Metadata trailers)
                {
                    answered = true;
                }
            };
        }
    };

    private volatile boolean answered;
    // Guarded by this.
    private long arrived;
    private boolean ended;
    private long wanted;
    private CompletableFuture<Void> waiter;

    @Override
    public <T extends AbstractStub<T>> T wrapStub(T stub)
    {
        return stub.withInterceptors(new Interceptor());
    }

    /**
     * Completes once {@code count} messages have arrived or the call has
     * ended, whichever is first; one waiter at a time. The future may be
     * completed on a gRPC thread: callers continue with an *Async stage.
     */
    synchronized CompletableFuture<Void> whenArrived(long count)
    {
        if (ended || arrived >= count) {
            return CompletableFuture.completedFuture(null);
        }
        wanted = count;
        waiter = new CompletableFuture<>();
        return waiter;
    }

    /** Whether the server sent this call headers or trailers (its own status), rather than gRPC making one up here. */
    boolean serverAnswered()
    {
        return answered;
    }

    private void arrive(boolean end)
    {
        CompletableFuture<Void> ready = null;
        synchronized (this) {
            if (end) {
                ended = true;
            }
            else {
                arrived++;
            }
            if (waiter != null && (ended || arrived >= wanted)) {
                ready = waiter;
                waiter = null;
            }
        }
        if (ready != null) {
            ready.complete(null);
        }
    }

    private final class Interceptor
            implements ClientInterceptor
    {
        @Override
        public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, io.grpc.CallOptions options, Channel next)
        {
            return new SimpleForwardingClientCall<>(next.newCall(method, options.withStreamTracerFactory(tracer)))
            {
                @Override
                public void start(Listener<R> listener, Metadata headers)
                {
                    super.start(new SimpleForwardingClientCallListener<>(listener)
                    {
                        @Override
                        public void onMessage(R message)
                        {
                            // Counted once FlightStream has queued it, however that went.
                            try {
                                super.onMessage(message);
                            }
                            finally {
                                arrive(false);
                            }
                        }

                        @Override
                        public void onClose(Status status, Metadata trailers)
                        {
                            try {
                                super.onClose(status, trailers);
                            }
                            finally {
                                arrive(true);
                            }
                        }
                    }, headers);
                }
            };
        }
    }
}
