#!/usr/bin/env python3
"""seed_rules.py with a deliberate bug (d < enter instead of d <= enter), to show engine-check catching it."""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seed_rules

def wrong_boundary(state, d, rule):
    if d < rule.get("enter_m", 80):  # BUG on purpose: a fix exactly at the enter radius must count as inside
        return "inside"
    if d >= rule.get("exit_m", 120):
        return "outside"
    return state

if __name__ == "__main__":
    seed_rules.serve(next_state=wrong_boundary)
