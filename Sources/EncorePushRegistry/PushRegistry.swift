// The push-token registry (issue 18): in progress, nothing here yet.
