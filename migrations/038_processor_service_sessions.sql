-- The receipt a service-started onramp session belongs to: its PaymentAttemptStarted (openedBy
-- service) in the event log. A processor event that reports the session for another receipt is
-- ignored there and marks the session shared (readmodels.ProcessorEvents.SessionOwner).
CREATE INDEX IF NOT EXISTS events_service_sessions ON events ((data->>'processorSessionId'))
    WHERE type = 'PaymentAttemptStarted' AND (data->>'openedBy') = 'service';
