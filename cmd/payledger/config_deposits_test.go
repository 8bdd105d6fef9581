package main

import (
	"crypto/rand"
	"strings"
	"testing"
	"time"
)

// DESIGN 9: DEPOSIT_FACTORY, PAYMENT_WINDOW (1h) and PAYMENT_MONITOR_WINDOW (24h); issue 41:
// PAYMENT_LATE_WATCH (a week).
func TestConfigDeposits(t *testing.T) {
	t.Parallel()
	c, _, err := loadConfig(env(nil), rand.Reader)
	if err != nil || c.DepositFactory != "" || c.PaymentWindow != time.Hour || c.PaymentMonitorWindow != 24*time.Hour || c.PaymentLateWatch != 7*24*time.Hour || c.SweepFailedMinCents != 0 {
		t.Fatalf("defaults: factory %q window %s monitor %s, %v", c.DepositFactory, c.PaymentWindow, c.PaymentMonitorWindow, err)
	}
	factory := "0x" + strings.Repeat("3", 40)
	c, _, err = loadConfig(env(map[string]string{"DEPOSIT_FACTORY": factory, "PAYMENT_WINDOW": "15m", "PAYMENT_MONITOR_WINDOW": "48h",
		"PAYMENT_LATE_WATCH": "72h", "SWEEP_FAILED_MIN_CENTS": "250"}), rand.Reader)
	if err != nil || c.DepositFactory != factory || c.PaymentWindow != 15*time.Minute || c.PaymentMonitorWindow != 48*time.Hour || c.PaymentLateWatch != 72*time.Hour ||
		c.SweepFailedMinCents != 250 {
		t.Fatalf("set: %+v, %v", c, err)
	}
	_, _, err = loadConfig(env(map[string]string{"DEPOSIT_FACTORY": "0x12", "PAYMENT_WINDOW": "soon", "PAYMENT_MONITOR_WINDOW": "-1h",
		"PAYMENT_LATE_WATCH": "0s", "SWEEP_FAILED_MIN_CENTS": "-1"}), rand.Reader)
	for _, want := range []string{"DEPOSIT_FACTORY must be", "PAYMENT_WINDOW must be a positive duration", "PAYMENT_MONITOR_WINDOW must be a positive duration",
		"PAYMENT_LATE_WATCH must be a positive duration", "SWEEP_FAILED_MIN_CENTS must be an integer >= 0"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}
