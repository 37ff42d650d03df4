"""The reviewer console: server-rendered pages for the reviews, threads and runs of a tenant,
signed in with an API token (no JavaScript build step; a little plain JavaScript follows a
running thread)."""
