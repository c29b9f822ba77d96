package io.sstableflight.trino;

import io.trino.spi.connector.ConnectorSession;

import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.Map;

import static io.sstableflight.trino.SstableFlightSessionProperties.PUSHDOWN_ENABLED;

/**
 * A ConnectorSession for unit tests, answering the catalog's session
 * properties from a map and naming a query; anything else it is asked
 * fails the test, so a test learns when the code starts reading more of
 * the session.
 */
final class TestingSession
{
    static final String QUERY_ID = "20261207_000000_00001_tests";
    static final Instant START = Instant.parse("2026-12-07T00:00:00Z");

    private TestingSession() {}

    static ConnectorSession pushdown(boolean enabled)
    {
        return of(Map.of(PUSHDOWN_ENABLED, enabled));
    }

    static ConnectorSession of(Map<String, Object> properties)
    {
        return (ConnectorSession) Proxy.newProxyInstance(ConnectorSession.class.getClassLoader(), new Class<?>[] {ConnectorSession.class}, (_, method, args) ->
                switch (method.getName()) {
                    case "getProperty" -> {
                        Object value = properties.get((String) args[0]);
                        if (value == null) {
                            throw new IllegalArgumentException("session property " + args[0] + " is not set in this test");
                        }
                        yield ((Class<?>) args[1]).cast(value);
                    }
                    case "getQueryId" -> QUERY_ID;
                    case "getStart" -> START;
                    case "toString" -> "TestingSession" + properties;
                    case "hashCode" -> System.identityHashCode(properties);
                    case "equals" -> args[0] == properties;
                    default -> throw new UnsupportedOperationException("TestingSession." + method.getName());
                });
    }
}
