# hooks
