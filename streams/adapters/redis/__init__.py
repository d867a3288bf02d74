"""Redis: the signage read model (one hash per meter, change notifications) and the playability
board beside it. The only place the Redis client is imported.
"""
