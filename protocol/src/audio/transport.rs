//! Audio transport (spec 2 §7-§9): the upload helper's category and limits, the download event stream.
