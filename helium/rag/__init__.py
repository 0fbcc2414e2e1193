"""RAG over files: read and chunk files by their structure, index them in the project's vector store, search
them, and check that answers cite real line (or page) ranges.  Used by `helium rag …`, `@path` mentions in
chat, the chat's search_files tool and the rag flow."""
